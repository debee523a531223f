/*
 * batchrun.h: the one loop of the batch steps that send a library's snippets through an AI
 * provider after an index write (describe.c: titles and descriptions from the LLM;
 * embedder.c: embedding vectors).
 *
 * batchrun_run loads the step's provider from the
 * ai.* settings (nothing is done without one), sets the deadline of the run, then, until
 * the step has no more work: polls cancel, has the step select its next batch and send it
 * through the provider and write the results. The step's differences are a table of
 * operations (struct batchrun_ops); its state embeds struct batchrun as its first member.
 * A provider, deadline, database or memory failure ends the run (-1) with one line in the
 * step's error: the caller degrades (lexical retrieval, heuristic titles) and a later run
 * completes what is missing. Lines logged and errors never hold the provider's key.
 */
#ifndef BATCHRUN_H
#define BATCHRUN_H

#include <stddef.h>

#include "ai/provider.h"

struct batchrun;
struct db;

struct batchrun_ops {
	int		 llm;		/* 1: the LLM (ai.llm.*), 0: embeddings (ai.embed.*) */
	const char	*what;		/* "LLM" or "embedding": names the key refused */
	const char	*invalid;	/* error when the settings do not load */
	const char	*nomodel;	/* error when no model is set */
	/* Once the provider is known: prepares the step (may select all its work). */
	int		(*begin)(struct batchrun *);
	/* Selects the next batch; *n is its size, 0 when nothing is left. */
	int		(*next)(struct batchrun *, size_t *n);
	/* Sends the batch of n through the provider and writes the results. */
	int		(*send)(struct batchrun *, size_t n);
	/* Always called last (rc: the run's result so far): summary lines, stats, frees. */
	void		(*end)(struct batchrun *, int rc);
	/* The step's name in a progress report ("describing", "embedding"). */
	const char	*phase;
	/* May be NULL: the snippets done so far and the run's total, for progress. */
	void		(*count)(struct batchrun *, size_t *done, size_t *total);
};

struct batchrun {
	/* in: batchrun_init, batchrun_run */
	struct db	*db;
	const char	*datadir;
	const char	*library_id;
	void		(*log)(void *ctx, const char *level, const char *line);
	void		*log_ctx;	/* NULL log: the process log */
	int		(*cancel)(void *log_ctx);	/* may be NULL */
	/* may be NULL: told the step's progress after begin and after each batch */
	void		(*progress)(void *log_ctx, const char *phase, size_t done,
			    size_t total);
	long		 budget_ms;	/* time budget of the run */
	int		*configured;	/* out: a provider is configured */
	int		*cancelled;	/* out: cancel stopped the run */
	char		*error;		/* out: on -1, why */
	size_t		 errorsz;
	/* set by batchrun_run */
	const struct batchrun_ops *ops;
	struct provider_cfg cfg;
	long long	 t0, deadline;	/* monotonic ms */
};

/*
 * Empties b and points its outputs at the step's stats: configured, cancelled and error
 * (errorsz bytes). budget_ms: the run's time budget; cancel: polled before each batch
 * (may be NULL).
 */
void	 batchrun_init(struct batchrun *b, long budget_ms, int (*cancel)(void *),
	    int *configured, int *cancelled, char *error, size_t errorsz);

/*
 * Runs the step ops on b (after batchrun_init) for library_id; log (NULL: the process log)
 * receives the lines, with log_ctx, which cancel also gets. b->cfg, t0 and deadline are set
 * here; b->cfg is released at the end. 0 when no provider is configured, when cancelled,
 * or when the step has no more work; -1 on a failure with the error set.
 */
int	 batchrun_run(const struct batchrun_ops *ops, struct batchrun *b, struct db *db,
	    const char *datadir, const char *library_id,
	    void (*log)(void *, const char *, const char *), void *log_ctx);

/* A line for the caller's log (level "info", "warning" or "error"), the key scrubbed. */
void	 batchrun_log(struct batchrun *, const char *level, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Sets the run's error (one line, the key scrubbed). */
void	 batchrun_error(struct batchrun *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * Milliseconds left for a provider call (at most cap when cap > 0); -1 with the error
 * "the time budget of N s ran out" when none is left.
 */
long long batchrun_left(struct batchrun *, long cap);
/* Sets the error of a provider failure: the key refused, or "kind: message". */
void	 batchrun_provider_error(struct batchrun *, const struct provider_error *);

#endif
