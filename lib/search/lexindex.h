/* lexindex.h: the in-memory lexical (BM25) index of a library. */
#ifndef LEXINDEX_H
#define LEXINDEX_H

#include <stddef.h>
#include <stdint.h>

struct lexindex;
struct db;
struct tokenize_stemmer;

/* A scored snippet. */
struct lexindex_hit {
	long long	 id;		/* snippets.id */
	long long	 doc;		/* snippets.document_id */
	int		 tokens;
	double		 score;		/* higher is better */
	/*
	 * Which of the question's index terms the snippet itself holds (bit i: the i-th term
	 * lexindex_search made of the question), for lexindex_search's hits; 0 for a hit of
	 * another ranking (vectors).
	 */
	uint64_t	 terms;
};

/*
 * Loads a library's index terms (nsnippets: its snippet count, a capacity hint that must
 * not be exceeded) into memory through stem. NULL on failure.
 */
struct lexindex *lexindex_build(struct db *, struct tokenize_stemmer *,
	    const char *library_id, long nsnippets);
void	 lexindex_free(struct lexindex *);
/*
 * Writes x (built by lexindex_build) as a segment dir/name (segment.h: temporary name,
 * fsync, rename). 0, or -1 with errno set.
 */
int	 lexindex_write_segment(const struct lexindex *, const char *dir, const char *name);
/* The same with the sections more[0..nmore) after the lexical ones (vecseg.h's, say). */
struct segment_part;
int	 lexindex_write_segment_with(const struct lexindex *, const char *dir,
	    const char *name, const struct segment_part *more, size_t nmore);
/*
 * The index of the segment at path, mapped read-only and checked (the container's checks
 * and every stored index against its section's bounds); searches on it rank exactly as on
 * the index it was written from. NULL with why (errno EINVAL) when it is refused; errno
 * ENOENT when there is no such file.
 */
struct lexindex *lexindex_map(const char *path, char *why, size_t whylen);
/* The same of the segment in buf[0..len) (segment_open_memory: buf must outlive it). */
struct lexindex *lexindex_open_memory(const void *buf, size_t len, char *why, size_t whylen);
/*
 * This process's private memory held by x: all of it for an index built in memory; for a
 * mapped one only its scratch arrays (allocated by its first search, about 21 bytes a
 * snippet), the mapping itself being the page cache's, shared by every process.
 */
size_t	 lexindex_bytes(const struct lexindex *);
/* Frees a mapped index's scratch arrays (its next search allocates them again). */
void	 lexindex_trim(struct lexindex *);
/*
 * How many snippets the last search of x scored exactly (with their parents): all that
 * match a question term when it scored exhaustively, fewer when it pruned.
 */
size_t	 lexindex_scored(const struct lexindex *);
/* 1 when x is mapped from a segment (lexindex_map), 0 when built in memory. */
int	 lexindex_mapped(const struct lexindex *);
/*
 * BM25 of the library's snippets for the quoted terms of tokenize_match_terms (in the
 * question's order); the best max into out, best first. With LEXINDEX_PROXIMITY the best
 * 80 (or max) by BM25 also score for consecutive question terms standing near each other in a
 * snippet (see lexindex_proximity); without it the scores are FTS5's bm25() exactly.
 */
#define LEXINDEX_PROXIMITY	0x1
/*
 * With LEXINDEX_IDF_FLOOR a term's IDF is log(1 + (N - n + 0.5) / (n + 0.5)), above 0 however
 * many snippets hold it (an API's resource words are in most of its operations), instead of
 * FTS5's log((N - n + 0.5) / (n + 0.5)), which is near 0 for a term in half of them.
 */
#define LEXINDEX_IDF_FLOOR	0x2
/*
 * Scores every posting of every term. Without it the search prunes (MaxScore over the
 * terms' score bounds: lexindex.c, lexindex_pruned) and returns exactly the same hits, in
 * the same order with the same scores; the flag is there to compare (t/unit/test-lexindex).
 */
#define LEXINDEX_EXHAUSTIVE	0x4
/* Prunes at any size (by default a question with few postings is scored exhaustively). */
#define LEXINDEX_PRUNE_ALWAYS	0x8
/*
 * qsort order of hits: best score first, then the smaller id. (Inline here: lib/search/vector.c
 * sorts hits too and is also built alone by bench/vectors.)
 */
static inline int
lexindex_hit_cmp(const void *a, const void *b)
{
	const struct lexindex_hit *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}
int	 lexindex_search(struct lexindex *, struct tokenize_stemmer *, char **terms,
	    size_t nterms, int flags, struct lexindex_hit *out, size_t max, size_t *n);

/*
 * The id of the section that encloses snippet id (its first part; a later part of a split
 * section: the section's first part), 0 when there is none or id is not in the index.
 */
long long lexindex_parent_of(const struct lexindex *, long long id);
/*
 * What the ranking reads of snippet id besides its scores (its place: the dev-file
 * demotion, the example rule, content.injection=hold), so that a search reads it from the
 * index, not the database: its document's path cut at LEXINDEX_PLACE_PATH bytes, its title
 * cut at LEXINDEX_PLACE_TITLE (as store_query_snippet_place cuts them into buffers one byte
 * longer), and 1 in *flagged when a content rule flagged it. The strings live as long as
 * x. 1, or 0 when x holds no places (a segment written before them) or not id.
 */
#define LEXINDEX_PLACE_PATH	1023
#define LEXINDEX_PLACE_TITLE	255
int	 lexindex_place(const struct lexindex *, long long id, const char **path,
	    const char **title, int *flagged);
/* 1 when x holds the places of its snippets, 0 when not. */
int	 lexindex_places(const struct lexindex *);

/*
 * The share (0 to 1) of the library's snippets holding word (n bytes, tokenized as a
 * question's is; its most frequent term when it makes several), 0 when none or on error.
 */
double	 lexindex_share(struct lexindex *, struct tokenize_stemmer *, const char *word,
	    size_t n);

#endif /* LEXINDEX_H */
