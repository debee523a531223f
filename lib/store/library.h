/*
 * store/library.h: the libraries row: its one loader (store_library_load) and the writes
 * of a library that a GitOps manifest manages.
 */
#ifndef STORE_LIBRARY_H
#define STORE_LIBRARY_H

#include <stddef.h>

struct sqlite3;

/* A library as stored (strings malloc'd; "" for a NULL column). */
struct store_library {
	int	 exists;		/* 0: no such library (nothing else is set) */
	char	*url, *type, *branch, *settings, *title, *description;
	char	*run_status, *state;
	int	 gitops;		/* managed by the GitOps manifest */
	int	 deleting;		/* a delete job is queued or running */
	int	 pending;		/* any job is queued or running */
};

/* Reads library id into l: 0 (l->exists 0 when there is none), or -1 (logged). */
int	 store_library_load(struct sqlite3 *, const char *id, struct store_library *l);
void	 store_library_release(struct store_library *);

/* The values a GitOps manifest entry gives a library. */
struct store_library_values {
	const char	*url, *type, *branch, *settings, *title, *description;
};

/*
 * Writes library id (host: its host[:port]) with values v: an INSERT of a new,
 * GitOps-managed library when exists is 0 (the next lib_no), else an UPDATE. 0, or -1
 * (logged). The caller holds the transaction and queues the index job (store/jobs.h).
 */
int	 store_library_write_managed(struct sqlite3 *, const char *id, const char *host,
	    const struct store_library_values *v, int exists);

/*
 * The ids of the GitOps-managed libraries not being deleted, in id order, into *ids
 * (*n of them; free each and the array). 0, or -1 (logged).
 */
int	 store_library_managed(struct sqlite3 *, char ***ids, size_t *n);

/*
 * What changed under a library, for store_library_bump: query processes see the new
 * version and reload what it covers.
 */
enum store_library_bump {
	STORE_BUMP_TOKENS,	/* its snippets changed in place: new index_version, tokens */
	STORE_BUMP_COUNTS,	/* its snippets changed: new index_version, every count */
	STORE_BUMP_VECTORS	/* its vectors changed: new embed_version */
};
/*
 * Gives library id a new version (unique across libraries), inside the caller's
 * transaction. 0, or -1 (logged).
 */
int	 store_library_bump(struct sqlite3 *, const char *id, enum store_library_bump);

#endif /* STORE_LIBRARY_H */
