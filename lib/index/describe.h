/*
 * describe.h: LLM-generated titles and descriptions of code snippets at indexing time.
 *
 * After an index write (or an unchanged commit), when an LLM is
 * configured (ai.llm.*), each kept snippet (not a duplicate) of the library that has code
 * and has not been seen yet (snippets.described 0) is judged: its title is weak when it is
 * empty, generic ("Example", "Usage", "Code", "Installation" ..., describe_weak_title),
 * equal to the page title, or shared by DESCRIBE_REPEATED or more kept snippets of the
 * library; it has no description when its prose is shorter than DESCRIBE_MIN_TEXT bytes.
 * Such a snippet gets a short title and a one-sentence description from the LLM:
 * DESCRIBE_BATCH snippets a request, each sent as its page title, breadcrumb, prose (at
 * most DESCRIBE_MAX_TEXT bytes) and code (at most DESCRIBE_MAX_CODE bytes), nothing else.
 *
 * Where they go: the generated title replaces snippets.title when the title was weak (the
 * heading stays in snippets.heading and in the breadcrumb); the description becomes
 * snippets.text when the snippet had no prose (prose written by people is kept). So the
 * answer's codeTitle / codeDescription and the "### title" line show them, and the
 * library's lexical index (its new index_version's, written after this step) has them, so
 * that they are searchable; its vector is dropped so that the embedder embeds the new text.
 *
 * Cache: snippet_descriptions holds each answer by the SHA-256 of the text sent for the
 * snippet and the model; a re-index, or another library with the same snippet, reuses it
 * without a request. Every judged snippet is marked described, so an unchanged snippet is
 * never judged or sent again.
 */
#ifndef DESCRIBE_H
#define DESCRIBE_H

#include <stddef.h>

struct db;

#define DESCRIBE_BATCH		8		/* snippets per request */
#define DESCRIBE_MAX_TEXT	1200		/* bytes of prose sent per snippet */
#define DESCRIBE_MAX_CODE	2000		/* bytes of code sent per snippet */
#define DESCRIBE_MIN_TEXT	16		/* shorter prose is no description */
#define DESCRIBE_REPEATED	3		/* a title this common is weak */
#define DESCRIBE_TITLE_MAX	80		/* bytes kept of a generated title */
#define DESCRIBE_DESC_MAX	300		/* ... and of a description */
#define DESCRIBE_CALL_MS	(60L * 1000)	/* deadline of one request */
#define DESCRIBE_DEADLINE_MS	(10L * 60 * 1000)	/* default time budget of a run */
#define DESCRIBE_MAX_OVERVIEWS	50		/* source files given an overview a run */

/* Receives each job log line ("info", "warning" or "error"); never given a secret. */
typedef void (*describe_log_fn)(void *ctx, const char *level, const char *line);

struct describe_stats {
	long	 budget_ms;	/* in: time budget; <= 0 is DESCRIBE_DEADLINE_MS */
	int	 (*cancel)(void *log_ctx); /* in, may be NULL: polled before each request;
				   1 stops the run (0 returned, cancelled set) */
	/* in, may be NULL: told "describing", the snippets done and their total */
	void	 (*progress)(void *log_ctx, const char *phase, size_t done, size_t total);
	int	 cancelled;	/* out: the run was stopped by cancel */
	int	 configured;	/* out: an LLM is configured */
	size_t	 judged;	/* out: snippets judged */
	size_t	 weak;		/* out: of which needed a title or description */
	size_t	 generated;	/* out: answered by the LLM now */
	size_t	 cached;	/* out: taken from snippet_descriptions */
	size_t	 requests;	/* out: chat requests sent */
	char	 error[512];	/* out: on -1, why (one line, never a secret) */
};

/*
 * Describes the snippets of library_id as above. Returns 0 when no LLM is configured
 * (nothing done) or all went well; -1 on a provider, deadline, database or memory failure
 * with out->error set and one "describing failed: ..." line logged: the snippets not done
 * keep their titles and stay to be described by a later run.
 */
int	 describe_run(struct db *, const char *datadir, const char *library_id,
	    describe_log_fn log, void *log_ctx, struct describe_stats *out);

/* 1 when title is generic: "Example", "Usage", "Code", "Installation" and the like. */
int	 describe_weak_title(const char *title);

/*
 * The snippets' entries of an LLM answer: a JSON array (possibly inside other text) of
 * {"id": N, "title": "...", "description": "..."}. titles[i] / descs[i] (malloc'd,
 * squeezed, capped) for id i + 1, NULL when missing or empty. Returns how many were set.
 */
size_t	 describe_parse_answer(const char *answer, size_t n, char **titles, char **descs);

/*
 * 1 when an LLM is configured (ai.llm.* names a provider and a model). The index then asks
 * code_parse_overview (doc.h) for an overview of each source file with little
 * documentation, at most DESCRIBE_MAX_OVERVIEWS a run: a snippet with the file's main
 * signatures as code and no prose, which describe_run describes like any other (its
 * answer cached in snippet_descriptions by the SHA-256 of what was sent, which the file's
 * content determines, and the model; content-rule flagged snippets are never sent).
 */
int	 describe_configured(struct db *, const char *datadir);

#endif
