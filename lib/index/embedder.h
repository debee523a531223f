/*
 * embedder.h: fills the embeddings table for a library's snippets after an index write.
 *
 * A vector is stored once per (model, SHA-256 hex of the embedded
 * text) in table vectors, whatever the number of snippets, libraries and versions that have
 * the text; an embeddings row (snippet, model, hash) names it (sql/0011-shared-vectors.sql).
 * Each kept snippet of the library (duplicates get none, see dedup.h) without a row for
 * the configured embedding model is given one: its text (title, breadcrumb, text and code,
 * capped at EMBEDDER_MAX_TEXT bytes) is hashed; when vectors has that model and hash only
 * the row is written ("reused"); the others are sent to the provider in batches of
 * EMBEDDER_BATCH texts, L2-normalised and written as float32 BLOBs with their rows, one
 * short BEGIN IMMEDIATE transaction per batch, so that every committed embeddings row has
 * its vector. Rows of other models are left alone (switching back to a model finds its
 * vectors).
 */
#ifndef EMBEDDER_H
#define EMBEDDER_H

#include <stddef.h>

struct db;

#define EMBEDDER_BATCH		256		/* snippets read, embedded and written at once */
#define EMBEDDER_MAX_TEXT	8000		/* bytes of a snippet's text sent to embed */
#define EMBEDDER_DEADLINE_MS	(10L * 60 * 1000)	/* default time budget of a run */

/* Receives each job log line ("info", "warning" or "error"); never given a secret. */
typedef void (*embedder_log_fn)(void *ctx, const char *level, const char *line);

struct embedder_stats {
	long	 budget_ms;	/* in: time budget of the run; <= 0 is EMBEDDER_DEADLINE_MS */
	int	 (*cancel)(void *log_ctx); /* in, may be NULL: polled before each batch;
				   1 stops the run (0 returned, cancelled set) */
	/* in, may be NULL: told "embedding", the snippets done and their total */
	void	 (*progress)(void *log_ctx, const char *phase, size_t done, size_t total);
	int	 cancelled;	/* out: the run was stopped by cancel */
	int	 configured;	/* out: an embedding provider is configured */
	char	 model[128];	/* out: the model's name ("" when not configured) */
	size_t	 embedded;	/* out: vectors received from the provider and stored */
	size_t	 reused;	/* out: snippets given a stored vector of the same hash */
	size_t	 missing;	/* out: snippets left without a vector for the model */
	double	 seconds;	/* out: duration of the run */
	char	 error[512];	/* out: on -1, why (one line, never a secret) */
};

/*
 * Embeds the snippets of library_id that have no vector for the configured model.
 * Returns 0 when no provider is configured (out->configured 0, nothing done) or every
 * snippet has a vector; -1 on a provider, deadline, database or memory failure, with
 * out->error set and one "embedding failed: ..." line logged. Vectors written before a
 * failure stay: a later run only embeds what is still missing. Logs "embedded N snippets
 * (M reused) with MODEL in S s" when it stored anything. At its end, configured or not and
 * whatever the outcome, it deletes the vectors no snippet names any more (embedder_gc).
 */
int	 embedder_run(struct db *, const char *datadir, const char *library_id,
	    embedder_log_fn log, void *log_ctx, struct embedder_stats *out);

/*
 * Deletes the vectors that no embeddings row names (of every model and library): those of
 * snippets deleted or rewritten by an index write, of duplicates (dedup.h), of described
 * snippets (describe.h) and of deleted libraries. A vector any snippet of any library still
 * names stays. Runs in the caller's write transaction when one is open
 * (library_delete_run), else in a BEGIN IMMEDIATE of its own: the write lock is held from
 * the scan to the commit, so no writer can name a vector in between (and the foreign key
 * from embeddings to vectors refuses a delete of a named one). A query process reads
 * embeddings and vectors in one statement (one snapshot), so it sees a snippet's row with
 * its vector, or neither. Call it at the end of a job, never between an index write and
 * its embed run (the snippets rewritten there find their unchanged texts' vectors by
 * hash).
 * *deleted is the number of vectors deleted. 0, or -1 on a database error.
 */
int	 embedder_gc(struct db *, size_t *deleted);

#endif
