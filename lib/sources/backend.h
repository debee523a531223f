/*
 * backend.h: the source back ends of the indexing pipeline (lib/index/index.c), one file each
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

struct json_object;
struct jobs_ref;
struct parse_req;
struct db;
struct url_parts;
struct validate_field;

#define BACKEND_HASH_MAX	65	/* hex content hash: git blob id (40) or SHA-256 (64) */

struct backend_doc {
	char	*path;			/* relative, '/'-separated; documents.path */
	char	*url;			/* web address (documents.url: the snippets' Source is
					 * url#anchor); NULL: set url_prefix + version + path */
	char	 hash[BACKEND_HASH_MAX]; /* content hash; documents.blob */
	size_t	 size;			/* bytes, known before loading */
	int	 changed;		/* 1 / 0 when the back end knows, -1: compare hash */
	char	*data;			/* content (NUL-terminated) when loaded, else NULL */
	size_t	 len;
	/*
	 * How to parse the content (doc_parse_as): a DOC_FORMAT_* name, or NULL to go by
	 * the path's extension as for files in a repository.
	 */
	const char *format;
	char	*title;			/* document title when the source names it (a wiki
					 * page's title), else NULL: the parser's */
	char	*etag;			/* HTTP validators of the answer, stored with the */
	char	*modified;		/* document for the next run's conditional GET */
};

/* A document as the previous run stored it (backend_stored). */
struct backend_stored {
	char	 hash[BACKEND_HASH_MAX];	/* "" when there is none */
	char	*etag, *modified, *url;		/* NULL when not stored */
};

/* What a fetch gives: the documents and what the source is at. */
struct backend_set {
	struct backend_doc *docs;
	size_t		 n, cap;
	char		 version[BACKEND_HASH_MAX]; /* commit, or another version id */
	char		*label;		/* resolved branch (libraries.indexed_branch) */
	char		*url_prefix;	/* web URL prefix (libraries.blob_prefix) */
	/*
	 * The source's own name for the library (an OpenAPI info.title, an llms.txt H1, a
	 * website's site name, a wiki space's name), or NULL: it becomes the library's title
	 * when the user gave none (store_library_source_title).
	 */
	char		*title;
};

void	 backend_set_init(struct backend_set *);
void	 backend_set_release(struct backend_set *);
/* Appends a document (path copied, hash at most BACKEND_HASH_MAX - 1 characters). */
struct backend_doc *backend_set_add(struct backend_set *, const char *path,
	    const char *hash, size_t size);
/*
 * Sets s->version, when the back end left it empty, to the SHA-256 (hex) of the sorted
 * (path, content hash) pairs: the same documents give the same version.
 */
int	 backend_set_digest(struct backend_set *);

/* What the pipeline hands a back end: the library and its job. */
struct backend_ctx {
	struct db	*db;
	const char	*datadir;
	long long	 job_id;	/* log lines: jobs_log(db, job_id, ...) */
	const char	*library_id;
	const char	*url, *host, *branch;
	const char	*settings;	/* the library's settings JSON */
	long		 max_fetch_mb;	/* limits.max_repo_mb */
	int		 full;		/* the pipeline re-parses every document: no
					 * conditional GET needed */
	long long	 deadline_ms;	/* the job's deadline for fetching (util_now_ms
					 * clock), 0: none */
	void		*priv;		/* the back end's own, from fetch to release */
	struct jobs_ref	*job;		/* the job's progress (backend_progress); may be NULL */
};

/*
 * The back ends' check between requests: 1 when the job's cancellation was requested, 2
 * when its deadline has passed, else 0. The pipeline's next check then ends the job; the
 * back end stops fetching and says why in the job log.
 */
int	 backend_stop(struct backend_ctx *);
/*
 * A back end that fetches document by document (a crawl, a wiki space) reports how far it
 * is: done of total known so far (0: not known), shown as the job's "fetching" progress
 * (documentsDone, documentsTotal of GET /api/jobs; the web UI's bar). Written at most every
 * JOBS_PROGRESS_MS; nothing without c->job.
 */
void	 backend_progress(struct backend_ctx *c, size_t done, size_t total);
/*
 * A source read with the instance's credentials while anonymous reads are on (setting
 * perm.require_mcp_auth off): a warning line in the job log, "<how>, and anonymous reads
 * are on: anyone who reaches the server can read <what> ...", naming the setting that
 * closes reads. Nothing when reads need a key.
 */
void	 backend_credentials_warning(struct backend_ctx *c, const char *how,
	    const char *what);
/*
 * The time a request may take now: timeout_ms, or what is left before the job's deadline
 * when that is less (0 once it has passed).
 */
long	 backend_timeout(const struct backend_ctx *, long timeout_ms);
/*
 * Sets q's deadline as backend_timeout does for a page of sources.page_timeout_s (page_ms)
 * and names the setting that decided it, so that a request that stalls fails saying which
 * deadline passed (sources.page_timeout_s, or limits.job_timeout_s when the job's time left
 * is shorter).
 */
struct fetch_req;
void	 backend_page_deadline(const struct backend_ctx *, long page_ms, struct fetch_req *q);

/*
 * What the previous run stored for path (its content hash and HTTP validators), for a
 * conditional GET: 0 with *out filled (out->hash "" when nothing is stored), -1 on a
 * database error. backend_stored_release frees it.
 */
int	 backend_stored_get(struct backend_ctx *, const char *path,
	    struct backend_stored *out);
void	 backend_stored_release(struct backend_stored *);

struct fetch_req;
/*
 * The job error of a source's HTTP request that failed or answered other than 2xx
 * ("could not fetch URL: HTTP 404 Not Found", "could not fetch URL: <why>"), with the
 * URL's credentials and query left out. Returns -1, for "return backend_http_error(...)".
 */
int	 backend_http_error(const struct fetch_req *, char *err, size_t errsz);

/*
 * A source type: everything the rest of ctxd asks of it is here, so that a type is one file
 * (and its line in registry.c): what people call it, its fields and library id rule
 * (sources/entry.c validates a source entry through them; GET /api/sources/types shows
 * them to the web UI's forms), the upstream policy that covers it, and its back end.
 */
#define BACKEND_UPLOAD_MAX	(16L * 1024 * 1024)	/* bytes of an uploaded description */

struct backend_ops {
	const char	*type;		/* libraries.source_type, an entry's "type" */
	const char	*label;		/* for people: "Git repository" */
	const char	*about;		/* one sentence on what it indexes */
	const char	*url_doc;	/* what its URL is: "the start page, such as ..." */
	/*
	 * The policy (sources/policy.h) that governs the upstream's libraries of this kind:
	 * "git", "website", "llmstxt", "openapi"; NULL: policy.other.
	 */
	const char	*policy_word;
	/*
	 * Its own fields of a source entry, besides entry.c's common ones (type, url or
	 * repoUrl, title, description), with their bounds, label, doc and default; the list
	 * ends with a row whose name is NULL.
	 */
	const struct validate_field *fields;
	int		 url_own;	/* 1: entry checks the URL and fields itself */
	/*
	 * A file upload that adds a source of this type besides an entry (the web API path
	 * that takes it, multipart field "file_field", at most upload_max bytes), or NULL.
	 */
	const char	*upload_path;
	const char	*upload_field;
	long		 upload_max;
	/*
	 * Fills p from the entry o: the library id (its rule), and the settings, the
	 * canonical JSON of its fields (backend_entry_settings), or for git its own fields.
	 * entry.c has validated the fields, set p->type, title, description and, unless
	 * url_own, checked the URL given in field url_name into u and set p->repo_url and
	 * p->host. 0, or -1 with err naming the field.
	 */
	int		(*entry)(struct parse_req *p, struct json_object *o,
			    const struct url_parts *u, const char *url_name, char *err,
			    size_t errsz);
	const char	*version_noun;	/* what set.version is, in messages ("commit") */
	int		 select_files;	/* 1: the git selection rules (folders, excludes,
					 * indexSourceCode) choose the documents */
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
	/*
	 * Removes what the back end keeps in datadir for a library being deleted (NULL:
	 * nothing); called before the library's rows go. 0, or -1 when something could not
	 * be removed (logged).
	 */
	int		(*forget)(struct db *, const char *datadir,
			    const char *library_id);
};

/* The back end of a source type, NULL when there is none (registry.c). */
const struct backend_ops *backend_lookup(const char *type);
/* The i-th source type of the registry (0, 1, ...), NULL past the last. */
const struct backend_ops *backend_at(size_t i);
/*
 * The source types as GET /api/sources/types answers: [{"type", "label", "about", "url",
 * "fields": [{"name", "type", "label", "doc", "required", "min", "max", "elemMax",
 * "choices", "default", "group"}], "upload": {"path", "field", "maxBytes"}}], the common
 * fields first ("required" of a field in a group: in that alternative). The caller puts it.
 */
struct json_object *backend_types_json(const struct validate_field *common);

/*
 * The settings of a source entry o (p->settings: the canonical JSON of the type's fields,
 * a default filled in for those not given; p->given_settings: of those given), for the
 * fields of a back end other than those named in omit (NULL-terminated, or NULL).
 * 0, or -1 with "out of memory" in err.
 */
int	 backend_entry_settings(struct parse_req *p, struct json_object *o,
	    const struct validate_field *fields, const char *const *omit, char *err,
	    size_t errsz);

/*
 * The OpenAPI uploads, DATA_DIR/uploads/<sha256>.<json|yaml> (lib/sources/openapisrc.c):
 * each is kept while a library's settings ("upload") name it.
 *
 * openapisrc_uploads_lock: an exclusive lock of the uploads folder dir (waits up to 30 s),
 * held from looking at the libraries to writing or removing a file; the descriptor, or
 * -1 with errno (ENOENT: no folder, EBUSY: still locked). openapisrc_uploads_unlock
 * releases it (-1: nothing).
 * openapisrc_upload_of: the upload library_id's settings name, malloc'd in *name (NULL
 * when none); -1 on a database error.
 * openapisrc_upload_release: removes upload name unless a library other than except
 * (NULL: none left out) names it; 0, or -1 (logged). The caller holds the lock.
 * openapisrc_uploads_bytes: the bytes of the distinct uploads named by the libraries
 * user_id added (0: those no user added, by anonymous callers and operator keys),
 * library except and upload name (each may be NULL) left out; 0, or -1 (logged).
 */
int	 openapisrc_uploads_lock(const char *dir);
void	 openapisrc_uploads_unlock(int fd);
int	 openapisrc_upload_of(struct db *, const char *library_id, char **name);
int	 openapisrc_upload_release(struct db *, const char *datadir, const char *name,
	    const char *except);
int	 openapisrc_uploads_bytes(struct db *, const char *datadir, long long user_id,
	    const char *except, const char *name, unsigned long long *bytes);

extern const struct backend_ops backend_git;
extern const struct backend_ops backend_website;
extern const struct backend_ops backend_llmstxt;
extern const struct backend_ops backend_wiki;
extern const struct backend_ops backend_openapi;

#endif /* BACKEND_H */
