/*
 * dedup.h: exact and near-duplicate snippets within a library.
 *
 * Each snippet is stored with two signatures: hash, the SHA-256
 * of its white-space-squeezed title, text and code (an exact copy), and for a snippet of
 * fewer than DEDUP_SHORT_WORDS words its heading trail too (its meaning then lies in the
 * trail: curl's "DEFAULT" sections say "NULL" for many options), and sig, a 64-bit
 * simhash of the word 3-shingles of its text and code (a near copy: at most
 * DEDUP_NEAR_BITS of the 64 bits differ), only for snippets of DEDUP_MIN_WORDS words or
 * more. A near copy must also have the same heading trail (document title, breadcrumb and
 * heading, the title as parsed): the same words under another heading document another thing (the curl option
 * pages differ in an option name; express's app.get()/app.post() share a paragraph).
 *
 * dedup_library() runs after every index write over all of the library's snippets: it
 * orders them by preference (dedup_prefer) and keeps each snippet that is neither an
 * exact nor a near copy of one kept before it. A duplicate keeps its snippets row with
 * dup_of set to the kept copy, which keeps it out of the lexical index (store/fts.h), and
 * loses its embeddings, so neither the lexical nor the vector index can return it. Because
 * the whole library is decided again at each run, a duplicate whose kept copy was deleted
 * or changed becomes a kept snippet again (the next index has it; the embedder gives it a
 * vector).
 */
#ifndef DEDUP_H
#define DEDUP_H

#include <stddef.h>
#include <stdint.h>

struct share_libs;
struct db;

#define DEDUP_NEAR_BITS		10	/* simhash bits that may differ in a near copy */
#define DEDUP_MIN_WORDS		24	/* shorter snippets only match exact copies */
#define DEDUP_SHORT_WORDS	8	/* ... and these only under the same trail */

struct dedup_sig {
	char		 hash[65];	/* SHA-256 hex of the normalised text + code */
	uint64_t	 sig;		/* simhash; meaningful when has_sig */
	int		 has_sig;	/* at least DEDUP_MIN_WORDS words */
	size_t		 words;		/* words of the text and code */
};

/*
 * Signatures of a snippet: hash covers its title, prose text and code (its code blocks
 * joined by '\n'), and its trail (document title and breadcrumb) when it is short; sig
 * its text and code only.
 */
void	 dedup_signature(const char *title, const char *text, const char *code,
	    const char *trail, struct dedup_sig *);

/* 1 when two simhashes are near copies (at most DEDUP_NEAR_BITS bits differ). */
int	 dedup_near(uint64_t, uint64_t);

/*
 * Preference between two copies of the same content: < 0 when the copy in document
 * path a (at position orda) is kept rather than the one in b. Changelogs and release
 * notes lose to every other file; then the higher version in a directory name wins
 * ("5x" over "4x", "v2" over "v1.9"); then the shallower path; then the path in byte
 * order; then the earlier position in the document.
 */
int	 dedup_prefer(const char *a, long orda, const char *b, long ordb);

struct dedup_stats {
	size_t	 snippets;	/* snippets of the library */
	size_t	 duplicates;	/* of which duplicates after the pass */
	size_t	 exact;		/* ... exact copies */
	size_t	 removed;	/* kept before, duplicates now */
	size_t	 restored;	/* duplicates before, kept now */
};

/*
 * Decides the kept copy of every snippet library_id owns and applies the changes (see
 * above), inside the caller's transaction. The snippets it shows from other libraries'
 * documents (lib/index/share.h) are in the pass as their owner decided: the kept ones are
 * kept copies for the library's own, before any of those (a document that would hide
 * the only copy of a duplicate is copied first, share_validate). A document of the
 * library that other libraries show and of which a snippet's decision changes is copied
 * for them first (share_unshare): their ids are added to *changed, whose pass must run
 * again.
 * Returns 0, or -1 on a database or memory failure (the caller rolls back).
 */
int	 dedup_library(struct db *, const char *library_id, struct share_libs *changed,
	    struct dedup_stats *);

#endif
