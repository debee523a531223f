/*
 * store/library.h: the libraries row: its one loader (store_library_load) and the writes
 * of a library that a GitOps manifest manages.
 */
#ifndef STORE_LIBRARY_H
#define STORE_LIBRARY_H

#include <stddef.h>

struct db;

/* A library as stored (strings malloc'd; "" for a NULL column). */
struct store_library {
	int	 exists;		/* 0: no such library (nothing else is set) */
	char	*id;			/* as stored (store_library_load_nocase) */
	char	*url, *type, *branch, *settings, *title, *description;
	char	*host;			/* host[:port] of url */
	char	*run_status, *state;
	int	 gitops;		/* managed by the GitOps manifest */
	int	 deleting;		/* a delete job is queued or running */
	int	 pending;		/* any job is queued or running */
	long long created_by;		/* the user who added it, 0: none */
	int	 created_anonymously;
	long long total_documents, total_snippets;
	long long lib_no;		/* its number: its full-text rows' tag "l<lib_no>" */
	char	*family;		/* the library whose versions it is (or its own id) */
	char	*indexed_commit;	/* what the index was built from; NULL: no index */
	char	*indexed_settings;	/* ... with what settings; NULL: none recorded */
};

/*
 * Inside the caller's transaction, before a statement that takes a new lib_no,
 * index_version or embed_version (max + 1 over all libraries): on PostgreSQL a lock
 * (pg_advisory_xact_lock of STORE_LIBRARY_NUMBERS_LOCK) held until the transaction ends,
 * so that concurrent transactions take distinct numbers; on SQLite nothing (one writer).
 * The store's functions that take numbers call it. 0, or -1 (logged).
 */
#define STORE_LIBRARY_NUMBERS_LOCK	0x63747864016cLL	/* "ctxd", 1, "l" */
int	 store_library_numbers_lock(struct db *);

/* Reads library id into l: 0 (l->exists 0 when there is none), or -1 (logged). */
int	 store_library_load(struct db *, const char *id, struct store_library *l);
/*
 * The same for the library whose id equals id but for case (ids that differ only in
 * case name one library), the one spelt exactly so first.
 */
int	 store_library_load_nocase(struct db *, const char *id,
	    struct store_library *l);
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
int	 store_library_write_managed(struct db *, const char *id, const char *host,
	    const struct store_library_values *v, int exists);

/*
 * The ids of the GitOps-managed libraries not being deleted, in id order, into *ids
 * (*n of them; free each and the array). 0, or -1 (logged).
 */
int	 store_library_managed(struct db *, char ***ids, size_t *n);

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
int	 store_library_bump(struct db *, const char *id, enum store_library_bump);

/*
 * Writes a new library id (from host, by user created_by, 0: none; anonymous: added by
 * an anonymous caller) with values v at now (ISO 8601), the next lib_no; its id is bound
 * to host (library_hosts, by a trigger). Inside the caller's transaction; 0, or -1.
 */
int	 store_library_insert(struct db *, const char *id, const char *host,
	    const struct store_library_values *v, long long created_by, int anonymous,
	    const char *now);
/* Writes the branch, settings, URL, title and description of library id (not its type). */
int	 store_library_update(struct db *, const char *id,
	    const struct store_library_values *v, const char *now);
/*
 * Writes the title and the description of library id, each only when not NULL: what a
 * library shows, not how it is indexed (no job, no new index version).
 */
int	 store_library_rename(struct db *, const char *id, const char *title,
	    const char *description, const char *now);
/*
 * The host an id was last bound to (library_hosts, kept after a deletion), ids compared
 * without case: 1 with *host malloc'd, 0 when none, -1 (logged).
 */
int	 store_library_bound_host(struct db *, const char *id, char **host);

/* The versions of a library (libraries with version_of) not being deleted. */
struct store_versions {
	char	**ids, **branches;
	size_t	  n;
};
int	 store_library_versions(struct db *, const char *id, struct store_versions *);
void	 store_versions_release(struct store_versions *);
/*
 * Writes version version of library parent as library id (branch = the version, the
 * parent's host, title and description, type git): a new row, or the URL and settings of
 * the version row there is. Inside the caller's transaction; 0, or -1.
 */
int	 store_library_version_put(struct db *, const char *id, const char *parent,
	    const char *version, const char *url, const char *settings, long long created_by,
	    const char *now);
/* The URL and settings of (version) library id follow its parent's. */
int	 store_library_version_follow(struct db *, const char *id, const char *url,
	    const char *settings, const char *now);

/*
 * Deletes the rows of library id, inside the caller's transaction: its embeddings,
 * snippets, documents (those showing other libraries' snippets go, those
 * snippets stay) and library rows, and its jobs but job keep (the delete job, the record)
 * with their logs. Vectors stay (store_vectors_gc). 0, or -1.
 */
int	 store_library_delete(struct db *, const char *id, long long keep);

/*
 * Gives library id the title its source names (title, not empty) when its title is still
 * def, the default one (the id's last segment: the user named none). 0, or -1.
 */
int	 store_library_source_title(struct db *, const char *id, const char *def,
	    const char *title);

/*
 * Records the index of library id just written, inside the write transaction: built from
 * commit (labelled label; blob_prefix the URL prefix of its files) with the library's
 * settings (none recorded when retry > 0: skipped files a later run may read), a new
 * index_version and its counts.
 */
int	 store_library_indexed(struct db *, const char *id, const char *commit,
	    const char *label, const char *url_prefix, long long retry);

/* A library's index as stored, for the index report (lib/admin/segments.c). */
struct store_library_index {
	const char	*id, *state;
	long long	 lib_no, index_version, snippets;
	int		 has_index;	/* an index run finished: there is something to serve */
};
/*
 * Calls cb with every library not being deleted, in id order (strings valid during the
 * call); cb returning -1 stops with -1. 0, or -1 (logged).
 */
int	 store_library_indexes(struct db *,
	    int (*cb)(const struct store_library_index *, void *), void *arg);

/*
 * Calls cb with every library's lib_no and index_version (the names of the index segments
 * in use: docs/DESIGN.md, "Index segments"); cb returning -1 stops with -1. 0, or -1.
 */
int	 store_library_index_versions(struct db *, int (*cb)(long long lib_no,
	    long long index_version, void *), void *);

#endif /* STORE_LIBRARY_H */
