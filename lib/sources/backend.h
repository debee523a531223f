/*
 * backend.h: the source back ends of the indexing pipeline (lib/index.c), one file each
 * in lib/sources/ (gitsrc.c, later website, llmstxt, openapi, wiki), as curl's lib/vtls/
 * holds its TLS back ends. A back end validates its settings, fetches its source into a
 * set of documents (path, content hash, size, and the content now or later), and tells
 * what changed: the version of the whole source (a commit; the pipeline compares it with
 * the indexed one) and, per document, changed or not when it knows (an HTTP 304), else
 * the pipeline compares the content hash with the stored document's.
 *
 * Adding a back end: one file defining a const struct backend_ops, one line in the table
 * of backend.c.
 */
#ifndef BACKEND_H
#define BACKEND_H

#include <stddef.h>

struct sqlite3;

#define BACKEND_HASH_MAX	65	/* hex content hash: git blob id (40) or SHA-256 (64) */

struct backend_doc {
	char	*path;			/* relative, '/'-separated; documents.path */
	char	*url;			/* web address; NULL: set url_prefix + version + path */
	char	 hash[BACKEND_HASH_MAX]; /* content hash; documents.blob */
	size_t	 size;			/* bytes, known before loading */
	int	 changed;		/* 1 / 0 when the back end knows, -1: compare hash */
	char	*data;			/* content (NUL-terminated) when loaded, else NULL */
	size_t	 len;
};

/* What a fetch gives: the documents and what the source is at. */
struct backend_set {
	struct backend_doc *docs;
	size_t		 n, cap;
	char		 version[BACKEND_HASH_MAX]; /* commit, or another version id */
	char		*label;		/* resolved branch (libraries.indexed_branch) */
	char		*url_prefix;	/* web URL prefix (libraries.blob_prefix) */
};

void	 backend_set_init(struct backend_set *);
void	 backend_set_release(struct backend_set *);
/* Appends a document (path copied, hash at most BACKEND_HASH_MAX - 1 characters). */
struct backend_doc *backend_set_add(struct backend_set *, const char *path,
	    const char *hash, size_t size);

/* What the pipeline hands a back end: the library and its job. */
struct backend_ctx {
	struct sqlite3	*db;
	const char	*datadir;
	long long	 job_id;	/* log lines: jobs_log(db, job_id, ...) */
	const char	*library_id;
	const char	*url, *host, *branch;
	const char	*settings;	/* the library's settings JSON */
	long		 max_fetch_mb;	/* limits.max_repo_mb */
	void		*priv;		/* the back end's own, from fetch to release */
};

struct backend_ops {
	const char	*type;		/* libraries.source_type */
	/* 0 when the settings JSON suits the back end, else -1 with err. */
	int		(*validate)(const char *settings, char *err, size_t errsz);
	/* Fetches the source into out (initialised by the caller); -1 with err. */
	int		(*fetch)(struct backend_ctx *, struct backend_set *out,
			    char *err, size_t errsz);
	/*
	 * Loads doc's content (at most max bytes) into doc->data/len; NULL when fetch
	 * loads every document. -1 with err.
	 */
	int		(*load)(struct backend_ctx *, struct backend_doc *, size_t max,
			    char *err, size_t errsz);
	/* Frees ctx->priv (may be NULL). */
	void		(*release)(struct backend_ctx *);
};

/* The back end of a source type, NULL when there is none. */
const struct backend_ops *backend_lookup(const char *type);

extern const struct backend_ops backend_git;

#endif /* BACKEND_H */
