/*
 * inject.h: untrusted content that speaks to the agents reading the answers ("prompt
 * injection"). At indexing, every snippet is scanned by a fixed table of rules (inject.c,
 * documented in ctxd-content(7)); its zero-width, bidirectional-control and tag characters
 * are stripped in any case. The rules that flag a snippet are stored in snippet_flags with
 * an excerpt; the query path holds flagged snippets back, marks them or ignores the flags
 * as the setting content.injection says.
 */
#ifndef INJECT_H
#define INJECT_H

#include <stddef.h>

#include <json.h>

struct doc_section;
struct db;

#define INJECT_SETTING		"content.injection"
#define INJECT_EXCERPT_MAX	160	/* bytes of an excerpt */
#define INJECT_RULES_MAX	16	/* rules in the table, at most */

/* content.injection: hold (the default) leaves flagged snippets out of answers. */
enum inject_mode {
	INJECT_HOLD,
	INJECT_MARK,		/* answered after a warning line naming the rules */
	INJECT_OFF		/* flags are ignored (invisible characters are still stripped) */
};

/* A rule that flagged a snippet, with the passage that made it do so. */
struct inject_hit {
	const char	*rule;		/* the rule's id (static) */
	char		 excerpt[INJECT_EXCERPT_MAX + 1];
};

/* The rules that flagged one snippet, each at most once, in the order they were found. */
struct inject_verdict {
	struct inject_hit hit[INJECT_RULES_MAX];
	size_t		 n;
};

/* The rule table: id and one-line description of rule i; NULL past the last. */
const char	*inject_rule_id(size_t i);
const char	*inject_rule_description(size_t i);
/* The mode of a content.injection value; NULL or an unknown value is INJECT_HOLD. */
enum inject_mode inject_mode_parse(const char *);

/*
 * Removes the invisible characters (U+200B-U+200F, U+202A-U+202E, U+2060-U+2064,
 * U+2066-U+2069, U+FEFF, U+E0000-U+E007F) from the NUL-terminated UTF-8 string s in
 * place (NULL is allowed), but a zero-width joiner or non-joiner next to a non-ASCII
 * character (emoji sequences, scripts that need them). Returns how many were removed.
 */
size_t	 inject_strip(char *s);
/*
 * Scans s (NUL-terminated UTF-8; NULL is allowed) with every rule and adds to v the
 * rules not already in it. prose is 1 for a snippet's title and prose, 0 for code (the
 * rules that read prose only skip it). Linear in the length of s.
 */
void	 inject_scan(const char *s, int prose, struct inject_verdict *v);
/*
 * One section at indexing: strips the invisible characters from its title, breadcrumb,
 * anchor, prose and code in place (rule invisible-text records it when they could hide
 * something: tag characters, bidirectional controls, zero-width characters inside a word
 * or many of them; the excerpt shows them) and scans title, prose and code. v is reset
 * first.
 */
void	 inject_section(struct doc_section *, struct inject_verdict *v);

/* Stores v's rules for a snippet of library_id just inserted (snippet_flags). */
int	 inject_store(struct db *, const char *library_id, long long snippet_id,
	    const struct inject_verdict *v);
/*
 * Writes the job log line of a library's content check: the number of flagged snippets,
 * per rule, and the first few sources, or that none was flagged.
 */
void	 inject_report(struct db *, long long job_id, const char *library_id);
/* The number of flagged snippets of a library (served ones: not duplicates); -1 on errors. */
long	 inject_flagged_count(struct db *, const char *library_id);
/* The mode stored in content.injection (the default when not set). */
enum inject_mode inject_mode_get(struct db *);
/*
 * The flagged snippets of a library, a page of them, into *out: {"libraryId", "mode",
 * "total", "limit", "offset", "flagged": [{"snippetId", "title", "source", "rule",
 * "excerpt"}]}, one element per snippet and rule, by snippet id. Returns 1, 0 when the
 * library does not exist, -1 on database errors (logged).
 */
int	 inject_list(struct db *, const char *library_id, long limit, long offset,
	    json_object **out);
/*
 * Adds to a library's JSON object o "flagged" (its flagged snippets) and "held" (those
 * left out of answers: all of them with content.injection=hold, else 0). -1 on errors.
 */
int	 inject_catalog(struct db *, const char *library_id, json_object *o);

#endif
