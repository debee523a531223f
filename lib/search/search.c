/* search.c: library lookup, library search and lexical context retrieval. */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json.h>

#include "ai/provider.h"
#include "base/buf.h"
#include "base/log.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "parse/parse.h"
#include "search/catalog.h"
#include "search/devdocs.h"
#include "search/format.h"
#include "search/inject.h"
#include "search/lexindex.h"
#include "search/libname.h"
#include "search/search.h"
#include "search/segment.h"
#include "search/upstream.h"
#include "search/vecseg.h"
#include "search/vector.h"
#include "sources/libid.h"
#include "store/aiconfig.h"
#include "store/db.h"
#include "store/localcopy.h"
#include "store/query.h"
#include "store/segstore.h"
#include "store/tokenizer.h"

#define SEARCH_CANDIDATES	80	/* best BM25 snippets re-ranked and packed */
/*
 * Room (tokens) below which a snippet too big for it is skipped rather than cut: more than
 * any budget, so that only an answer's first snippet is ever cut and the others are whole
 * sections (a smaller one may still fit where a bigger one did not); an API description's
 * first places are the exception (search_room). Cutting whenever 500 tokens were left
 * filled every answer to its budget with a cut section (bench/README.md, "No padding").
 */
#ifndef SEARCH_CUT_MIN
#define SEARCH_CUT_MIN		(FORMAT_MAX_TOKENS + 1)
#endif
#define SEARCH_MAX_RESULTS	25	/* libraries returned by a library search */
/*
 * Stop rule (search_stop): a candidate scoring below SEARCH_STOP_RATIO times the best one
 * is not answered, even when the budget has room (the budget is a ceiling, not a target);
 * the SEARCH_STOP_MIN best always are. Tuned with bench/eval (bench/README.md, "Compact
 * answers").
 */
#ifndef SEARCH_STOP_RATIO
#define SEARCH_STOP_RATIO	0.1
#endif
#ifndef SEARCH_STOP_MIN
#define SEARCH_STOP_MIN		2
#endif
/*
 * The tail of the stop rule: past the SEARCH_STOP_KEEP best candidates, one scoring below
 * SEARCH_STOP_TAIL times the best is not answered either, so that an answer stops when its
 * sections stop being about the question rather than when the budget is spent.
 */
#ifndef SEARCH_STOP_KEEP
#define SEARCH_STOP_KEEP	SEARCH_CANDIDATES
#endif
#ifndef SEARCH_STOP_TAIL
#define SEARCH_STOP_TAIL	0.5
#endif
/*
 * The soft stop: once an answer holds SEARCH_SOFT_MIN sections and SEARCH_SOFT_SHARE of its
 * budget, a further candidate must score at least SEARCH_SOFT_RATIO times the best: the
 * budget is a ceiling, and an answer that already holds its best sections stops adding
 * middling ones instead of filling the rest. The first SEARCH_SOFT_MIN sections are packed
 * whatever their score (what answers a question worded unlike the documentation often
 * stands second to fourth, at a third of the best). Tuned with bench/eval and
 * bench/eval-sources, with development files ranked down (search_demote_dev): the median
 * answer went from 8.6 to 6.6 KB with no answer lost but one (bench/README.md, "7 KB").
 */
#ifndef SEARCH_SOFT_SHARE
#define SEARCH_SOFT_SHARE	0.4
#endif
#ifndef SEARCH_SOFT_RATIO
#define SEARCH_SOFT_RATIO	0.6
#endif
#ifndef SEARCH_SOFT_MIN
#define SEARCH_SOFT_MIN		4
#endif
/*
 * The covered stop: once an answer holds every question term that any candidate holds
 * (it covers the question as far as the library can) and SEARCH_COVER_SHARE of its
 * budget, a further candidate must score at least SEARCH_COVER_RATIO times the best. An
 * answer whose sections still miss some of the question's words keeps the soft stop only:
 * what it lacks may stand in a weaker section. Tuned with bench/eval and
 * bench/eval-sources so that no answer is lost (bench/README.md, "covered stop").
 */
#ifndef SEARCH_COVER_SHARE
#define SEARCH_COVER_SHARE	0.7
#endif
#ifndef SEARCH_COVER_RATIO
#define SEARCH_COVER_RATIO	0.6
#endif
/*
 * A section's example goes with it: when one of the first SEARCH_EXAMPLE_OF sections
 * packed has a direct subsection among the candidates titled Example, Examples or Usage
 * (a man page's EXAMPLE, a Rust item's "# Examples"), that subsection is packed right after
 * it, past the soft and covered stops (not past the budget).
 */
#ifndef SEARCH_EXAMPLE_OF
#define SEARCH_EXAMPLE_OF	3
#endif

/*
 * What bounds the indexes a query process keeps (docs/DESIGN.md, "How ctxd scales"):
 * - SEARCH_PRIVATE_BYTES of its own memory (lexindex_bytes, vector_index_bytes): indexes
 *   built in memory (a library without a valid segment yet, vector indexes) and the scratch
 *   arrays of mapped ones. Past it, the least recently used give theirs back: a built index
 *   is freed (built again on its next question), a mapped one keeps its mapping and frees
 *   its scratch (lexindex_trim). The library being answered keeps its index even when that
 *   alone is over the budget, until another library's question needs the room: a process
 *   holds at most the budget plus the index of the library it answers.
 * - SEARCH_MAPPED_MAX entries, most of them mappings of index segments (lexindex_map).
 *   Mappings are not private memory: the page cache holds a segment once for every
 *   process, and the kernel drops its pages under pressure like any file's. This limit only
 *   guards the address space and the kernel's map count (vm.max_map_count, 65,530 by
 *   default; one map a segment), far above the libraries an instance serves; past it the
 *   least recently used entry is unmapped (mapping it again costs a system call and the
 *   segment's checks, not a rebuild).
 * No library is too large to be ranked this way: the ranking is the same at every size. A
 * library without a valid segment is built all the same (it answers), with a warning: its
 * next index run (or `ctxd-admin index rebuild`) writes its segment.
 */
#define SEARCH_PRIVATE_BYTES	(48L * 1024 * 1024)
#define SEARCH_MAPPED_MAX	8192

/*
 * Segments stored in the database (PostgreSQL: several nodes, each with its own DATA_DIR;
 * store/segstore.h): a library's store is looked at, for a segment missing here or for
 * vectors newer than the mapped file's, at most once every SEARCH_FETCH_RETRY seconds per
 * library version (a failed or fruitless look is not repeated for every question), and a
 * process waits at most SEARCH_FETCH_WAIT_MS for another process of this node fetching the
 * same segment before it builds from the database instead.
 */
#define SEARCH_FETCH_RETRY	30
#define SEARCH_FETCH_WAIT_MS	10000

/*
 * Local copies (PostgreSQL: store/localcopy.h): a query process answers a library's
 * questions from the rows of the node's copy of its current version,
 * DATA_DIR/copies/<lib_no>-<index_version>.db, built by the node's copier (search/copier.h)
 * ahead (a library it has none of, a new version of one it has) or when a question finds
 * none (that question and the next read the database meanwhile: about a second for
 * 100,000 snippets), and opened by each process on first use. Bounds: a library of more than
 * SEARCH_COPY_MAX_SNIPPETS snippets has none; a process keeps at most SEARCH_COPIES_OPEN
 * open, and at most half its open files' limit (RLIMIT_NOFILE) less 64: a copy open is a
 * file descriptor and about 40 KB (the least recently used is closed: opening it again
 * costs an open; its statements are prepared as they run); the folder holds at most
 * SEARCH_COPIES_BYTES (CTXD_LOCAL_COPIES_MB in the environment sets another budget; 0
 * turns copies off), the least recently opened going first. A failed build is tried again
 * after SEARCH_FETCH_RETRY seconds.
 */
/*
 * Without a copier (a plain CGI run, a test's own process) the question that finds no copy
 * builds it; such a process builds at most one copy every SEARCH_COPY_GAP_MS: under
 * traffic over many libraries (bench/README.md, 22:10 entry) it fills its copies a few a
 * second while the other questions read the database, instead of making every first
 * question of a library wait for its build.
 */
#define SEARCH_COPY_GAP_MS		1000
/* Seconds before a worker asks the copier again for a copy still missing (a full pipe). */
#define SEARCH_COPY_ASK_AGAIN		5
#define SEARCH_COPY_MAX_SNIPPETS	500000
#define SEARCH_COPIES_OPEN		512
#define SEARCH_COPIES_BYTES		(16LL * 1024 * 1024 * 1024)

/* Time budget for embedding a question; past it the answer is lexical only. */
#define SEARCH_EMBED_DEADLINE_MS	1500
/* Seconds between two readings of the embedding provider settings. */
#define SEARCH_PROVIDER_TTL		10

struct search_cached {
	char		 id[512];
	long long	 version;	/* index_version of x */
	unsigned long	 used;		/* LRU clock */
	struct lexindex	*x;
	long long	 embed_version;	/* of v */
	long long	 vec_index;	/* the index_version v was built on */
	char		 model[128];	/* of v */
	struct vecindex	*v;		/* mapped from the segment, or built (search_vecindex) */
	struct vecseg_info vseg;	/* the segment file last tried for vectors */
	int		 vec_big;	/* built v of these versions and model exceeds the budget */
	time_t		 fetch_at;	/* the last look at the store (search_fetch_due) */
	long long	 fetch_version;	/* the index_version it was for */
	struct store_query *copy;	/* the local copy's statements (search_copy); NULL */
	long long	 copy_version;	/* the index_version copy (or its last try) is of */
	time_t		 copy_at;	/* its last failed try; 0: try at the next question */
	time_t		 copy_asked;	/* when the copier was last asked for it; 0: not yet */
};

#define SEARCH_DEVDOCS_KEPT	4096	/* documents whose kind search_prefetch knows */

struct search {
	struct db	*db;
	struct store_query *q;		/* the prepared statements (store/query.h) */
	const char	*libid;		/* the library being answered (search_context) */
	size_t		 private_max;	/* SEARCH_PRIVATE_BYTES, or a test's */
	enum inject_mode inject;	/* of the request being answered */
	struct tokenize_stemmer *stem;
	struct search_cached *cache;	/* ncache entries, at most SEARCH_MAPPED_MAX */
	size_t		 ncache, capcache;
	size_t		 ncopies;	/* entries with a copy open, at most maxcopies */
	size_t		 maxcopies;	/* SEARCH_COPIES_OPEN, or fewer (search_open) */
	long long	 copy_built_ms;	/* when this process last built a copy (SEARCH_COPY_GAP_MS) */
	int		 copier_fd;	/* search_set_copier's; -1: none */
	long long	 copies_bytes;	/* SEARCH_COPIES_BYTES, or the environment's; 0: none */
	unsigned long	 clock;
	struct provider_cfg llm;	/* vendor NULL: no reranking */
	struct provider_cfg embed;	/* vendor NULL: lexical only */
	time_t		 embed_at;	/* when embed was read */
	struct search_trace *trace;	/* search_explain's, recording; else NULL */
	int		 detail;	/* search_set_detail */
	/*
	 * What search_demote_dev found each document to be (a development file or not), by
	 * document id, direct-mapped (a collision replaces): search_prefetch foresees the
	 * demotion of the documents it knows. A document's path never changes under its id.
	 */
	struct {
		long long	 doc;
		int		 dev;
	}		 devdocs[SEARCH_DEVDOCS_KEPT];
};

struct search *
search_open(struct db *db)
{
	struct search	*s;
	struct rlimit	 nofile;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->db = db;
	s->copier_fd = -1;
	if ((s->q = store_query_open(db)) == NULL ||
	    (s->stem = tokenize_stemmer_open(db)) == NULL) {
		log_err("%s: %s", __func__, db_errmsg(db));
		search_close(s);
		return NULL;
	}
	s->maxcopies = SEARCH_COPIES_OPEN;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY &&
	    nofile.rlim_cur / 2 < SEARCH_COPIES_OPEN + 64)
		s->maxcopies = nofile.rlim_cur / 2 > 72 ? (size_t)(nofile.rlim_cur / 2 - 64) : 8;
	s->copies_bytes = SEARCH_COPIES_BYTES;
	if (getenv("CTXD_LOCAL_COPIES_MB") != NULL) {
		long mb;

		if (util_parse_long(getenv("CTXD_LOCAL_COPIES_MB"), 0, 1024L * 1024 * 1024,
		    &mb) == 0)
			s->copies_bytes = (long long)mb * 1024 * 1024;
		else
			log_warn("CTXD_LOCAL_COPIES_MB: not a number of megabytes: ignored");
	}
	/* tests only: a smaller budget (t/t0259-shared-documents.sh) */
	s->private_max = SEARCH_PRIVATE_BYTES;
	if (getenv("CTXD_TEST_SEARCH_PRIVATE_BYTES") != NULL) {
		long v;

		if (util_parse_long(getenv("CTXD_TEST_SEARCH_PRIVATE_BYTES"), 0,
		    SEARCH_PRIVATE_BYTES, &v) == 0)
			s->private_max = (size_t)v;
	}
	return s;
}

void
search_close(struct search *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ncache; i++)
		store_query_close(s->cache[i].copy);
	store_query_close(s->q);
	for (i = 0; i < s->ncache; i++) {
		lexindex_free(s->cache[i].x);
		vector_index_free(s->cache[i].v);
	}
	free(s->cache);
	provider_cfg_release(&s->embed);
	tokenize_stemmer_close(s->stem);
	free(s);
}

/*
 * The 404 answer for version vid of library base, which is not indexed: names the
 * versions that are. -1 when out of memory or on a database error.
 */
static int
search_version_missing(struct search *s, const char *base, const char *vid,
    struct buf *out)
{
	char	*have;
	int	 rc;

	if (store_query_versions(s->q, base, &have) == -1)
		return -1;
	rc = buf_printf(out, "library %s has no indexed version %s; the indexed versions "
	    "are: %s (the default branch)%s%s; add a version with POST /api/parse and "
	    "\"versions\"", base, vid + strlen(base) + 1, base,
	    have != NULL ? ", " : "", have != NULL ? have : "");
	free(have);
	return rc;
}

/* A library's row read (search_library). */
struct search_lib_read {
	struct search_lib *out;
	int		 has_index;
};

static void
search_library_row(const struct store_query_lib *l, void *arg)
{
	struct search_lib_read *rd = arg;
	struct search_lib *out = rd->out;

	snprintf(out->id, sizeof(out->id), "%s", l->id);
	snprintf(out->title, sizeof(out->title), "%s", l->title);
	out->openapi = strcmp(l->source_type, "openapi") == 0;
	snprintf(out->state, sizeof(out->state), "%s", l->state);
	out->lib_no = (long)l->lib_no;
	snprintf(out->error, sizeof(out->error), "%s", l->error);
	out->snippets = (long)l->snippets;
	out->index_version = l->index_version;
	out->embed_version = l->embed_version;
	rd->has_index = l->has_index;
}

enum search_lib_status
search_library(struct search *s, const char *id, struct search_lib *out)
{
	enum search_lib_status r = SEARCH_LIB_NOT_FOUND;
	struct search_lib_read rd = { out, 0 };

	memset(out, 0, sizeof(*out));
	if (store_query_library(s->q, id, search_library_row, &rd) == 1) {
		if (strcmp(out->state, "delete") == 0)
			r = SEARCH_LIB_NOT_FOUND;
		else if (rd.has_index)
			r = SEARCH_LIB_READY;
		else if (strcmp(out->state, "error") == 0)
			r = SEARCH_LIB_FAILED;
		else
			r = SEARCH_LIB_PENDING;
	}
	return r;
}

/* What search_library_any_case looks for among the ids differing in case. */
struct search_nocase {
	struct search	*s;
	char		*id;
	size_t		 idsz, baselen, n;
	struct search_lib *out;
	enum search_lib_status r;
};

static int
search_nocase_one(const char *have, void *arg)
{
	struct search_nocase *c = arg;

	if (strlen(have) != c->n || c->n >= c->idsz ||
	    strcmp(have + c->baselen, c->id + c->baselen) != 0)
		return 0;
	memcpy(c->id, have, c->n + 1);
	c->r = search_library(c->s, c->id, c->out);
	return 1;
}

/*
 * search_library for id, whose "/owner/name" is its first baselen bytes; when no library
 * has that id exactly, the first in byte order whose owner and name equal it but for
 * ASCII case and whose version (the rest) is the same, and id (idsz bytes) becomes its
 * stored id. The hosted API treats ids so; local ids keep the case of their source.
 */
static enum search_lib_status
search_library_any_case(struct search *s, char *id, size_t idsz, size_t baselen,
    struct search_lib *out)
{
	struct search_nocase c;

	if ((c.r = search_library(s, id, out)) != SEARCH_LIB_NOT_FOUND)
		return c.r;
	c.s = s;
	c.id = id;
	c.idsz = idsz;
	c.baselen = baselen;
	c.n = strlen(id);
	c.out = out;
	store_query_nocase(s->q, id, search_nocase_one, &c);
	return c.r;
}

/*
 * The normal form of a client's library id (libid.h) into id and base (its
 * "/owner/name"), both idsz bytes, and key: 0 (*versioned set), 400 with the error in out
 * when malformed, -1 out of memory.
 */
static int
search_parse_id(const char *libid, char *id, char *base, size_t idsz, struct libid *key,
    int *versioned, struct buf *out)
{
	char	 err[320];
	int	 r;

	if ((r = libid_normalize(libid, key, err, sizeof(err))) == -2)
		return -1;
	if (r == 0 && strlen(key->id) >= idsz) {
		libid_release(key);
		snprintf(err, sizeof(err), "is too long");
		r = -1;
	}
	if (r == -1)
		return buf_printf(out, "parameter 'libraryId' %s", err) == -1 ? -1 : 400;
	snprintf(id, idsz, "%s", key->id);
	snprintf(base, idsz, "%.*s", (int)key->baselen, key->id);
	*versioned = key->versioned;
	return 0;
}

/* Parses a snippet's stored code JSON into s->code. */
static int
search_load_code(struct snippet *s, const char *json)
{
	json_object	*arr, *o, *v;
	size_t		 i, n;
	int		 rc = -1;

	if ((arr = json_tokener_parse(json)) == NULL)
		return -1;
	if (!json_object_is_type(arr, json_type_array))
		goto out;
	n = json_object_array_length(arr);
	if (n == 0) {
		rc = 0;
		goto out;
	}
	if ((s->code = calloc(n, sizeof(*s->code))) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		o = json_object_array_get_idx(arr, i);
		s->code[i].lang = strdup(json_object_object_get_ex(o, "language", &v) ?
		    json_object_get_string(v) : "");
		s->code[i].code = strdup(json_object_object_get_ex(o, "code", &v) ?
		    json_object_get_string(v) : "");
		s->code[i].at = json_object_object_get_ex(o, "at", &v) &&
		    json_object_get_int64(v) >= 0 ? (size_t)json_object_get_int64(v) :
		    DOC_CODE_AFTER;
		s->ncode++;
		if (s->code[i].lang == NULL || s->code[i].code == NULL)
			goto out;
	}
	rc = 0;
out:
	json_object_put(arr);
	return rc;
}

/*
 * The stop rule, on the ranking's own scores: drops the candidates scoring below
 * SEARCH_STOP_RATIO times the best, keeping at least the SEARCH_STOP_MIN best ones, and
 * sorts the rest best first (the packing order).
 */
static void
search_stop(struct lexindex_hit *c, size_t *n)
{
	double	 best = 0, floor;
	size_t	 i, k, above;

	for (i = 0; i < *n; i++)
		if (c[i].score > best)
			best = c[i].score;
	floor = SEARCH_STOP_RATIO * best;
	for (i = 0, above = 0; i < *n; i++)
		if (c[i].score >= floor)
			above++;
	if (above < SEARCH_STOP_MIN) {
		/* Too few above the floor: keep the SEARCH_STOP_MIN best instead. */
		qsort(c, *n, sizeof(*c), lexindex_hit_cmp);
		if (*n > SEARCH_STOP_MIN)
			*n = SEARCH_STOP_MIN;
		return;
	}
	for (i = 0, k = 0; i < *n; i++)
		if (c[i].score >= floor)
			c[k++] = c[i];
	*n = k;
	qsort(c, *n, sizeof(*c), lexindex_hit_cmp);
	for (i = SEARCH_STOP_KEEP; i < *n; i++)
		if (c[i].score < SEARCH_STOP_TAIL * best) {
			*n = i;
			break;
		}
}

/*
 * Candidate id's path and title (cut to the buffers): from the index when it holds places
 * (lexindex_place: no database read), else as the store reads them. 1, or 0 when the
 * library does not show it.
 */
static int
search_place(struct search *s, struct lexindex *x, long long id, char *path, size_t pathsz,
    char *title, size_t titlesz)
{
	const char	*p, *t;
	int		 flagged;

	if (lexindex_place(x, id, &p, &t, &flagged) == 1) {
		snprintf(path, pathsz, "%s", p);
		snprintf(title, titlesz, "%s", t);
		return 1;
	}
	return store_query_snippet_place(s->q, id, path, pathsz, title, titlesz);
}

/*
 * Development files (contributing guides, code of conduct, CI and release process files,
 * to-do lists, internals, tests..., and the entries of changelogs and release notes older
 * than the current major version: devdocs.h) rank below user documentation of the same
 * score: their candidates' scores times DEVDOCS_FACTOR. The current major version is the highest that a changelog heading
 * among the candidates names. A question about them still finds them.
 */
static void
search_demote_dev(struct search *s, struct lexindex *x, struct lexindex_hit *c, size_t n)
{
	int		 kind[SEARCH_CANDIDATES];
	long		 major[SEARCH_CANDIDATES], current = -1;
	char		 path[1024], title[256];
	size_t		 i;

	if (n > SEARCH_CANDIDATES)
		n = SEARCH_CANDIDATES;
	for (i = 0; i < n; i++) {
		kind[i] = DEVDOCS_USER;
		major[i] = -1;
		if (search_place(s, x, c[i].id, path, sizeof(path), title, sizeof(title)) != 1)
			continue;
		kind[i] = devdocs_kind(path);
		if (kind[i] == DEVDOCS_CHANGELOG && (major[i] = devdocs_major(title)) > current)
			current = major[i];
	}
	for (i = 0; i < n; i++) {
		if (kind[i] != DEVDOCS_CHANGELOG && c[i].doc > 0) {
			s->devdocs[c[i].doc % SEARCH_DEVDOCS_KEPT].doc = c[i].doc;
			s->devdocs[c[i].doc % SEARCH_DEVDOCS_KEPT].dev = kind[i] == DEVDOCS_DEV;
		}
		if (kind[i] == DEVDOCS_DEV || (kind[i] == DEVDOCS_CHANGELOG &&
		    major[i] >= 0 && major[i] < current))
			c[i].score *= DEVDOCS_FACTOR;
	}
	qsort(c, n, sizeof(*c), lexindex_hit_cmp);
}

/* Where a snippet stands in its page (for neighbour expansion). */
struct snippet_pos {
	long long	 doc;
	long long	 ord;
};

/* Where search_load puts a snippet. */
struct search_loading {
	struct snippet	*sn;
	struct snippet_pos *pos;
};

static int
search_load_row(const struct store_query_snippet *r, void *arg)
{
	struct search_loading *l = arg;
	struct snippet	*sn = l->sn;

	sn->title = strdup(r->title);
	sn->breadcrumb = strdup(r->breadcrumb);
	sn->text = strdup(r->text);
	sn->page_title = strdup(r->page_title);
	sn->source = format_source_of(r->url, r->blob_prefix, r->indexed_commit, r->path,
	    r->anchor);
	sn->tokens = r->tokens;
	if (l->pos != NULL) {
		l->pos->doc = r->document_id;
		l->pos->ord = r->ord;
	}
	if (r->flags != NULL && (sn->flags = strdup(r->flags)) == NULL)
		return -1;
	if (sn->title == NULL || sn->breadcrumb == NULL || sn->text == NULL ||
	    sn->page_title == NULL || sn->source == NULL ||
	    search_load_code(sn, r->code) == -1)
		return -1;
	return 0;
}

/*
 * Loads one snippet's fields into sn, and its place into pos when not NULL. sn->flags
 * names the rules that flagged it (NULL when none did). Returns 0, 1 when there is no
 * such snippet (a candidate of a stale cache: skipped), -1 on errors.
 */
static int
search_load(struct search *s, long long id, struct snippet *sn, struct snippet_pos *pos)
{
	struct search_loading l = { sn, pos };

	return store_query_snippet(s->q, id, s->libid, search_load_row, &l);
}

/*
 * Neighbour expansion: a snippet that depends on an earlier one of its document carries
 * that one's opening paragraph (at most SEARCH_EXPAND_BYTES, cut at a line end) before
 * its own text. A snippet depends on
 * - the one just before it when it continues the same section (a long section split in
 *   parts: same title and breadcrumb);
 * - when it is code with almost no prose (under SEARCH_EXPAND_SHORT bytes): its nearest
 *   enclosing section (a breadcrumb that opens its own), else the document's first
 *   snippet (a man page's NAME line above its EXAMPLE).
 * Not when that snippet is in the answer already (skip, nskip ids), nor when it is
 * flagged (content.injection hold or mark), nor when the paragraph, cut at a line end,
 * does not fit in room tokens. Returns the tokens added (0
 * when nothing was), -1 on failure.
 */
#define SEARCH_EXPAND_BYTES	600
#define SEARCH_EXPAND_SHORT	80
#define SEARCH_EXPAND_LOOKBACK	50
/* The walk back of search_expand: the snippet it depends on (pickid), 0 when none. */
struct search_walk {
	const struct snippet *sn;
	int		 codeonly, first;
	long long	 pickid;
};

static int
search_expand_prev(long long pid, const char *title, const char *crumb, long long ord,
    void *arg)
{
	struct search_walk *w = arg;
	size_t		 clen;

	if (title == NULL || crumb == NULL)
		return 1;
	clen = strlen(crumb);
	if (w->first && strcmp(title, w->sn->title) == 0 &&
	    strcmp(crumb, w->sn->breadcrumb) == 0) {
		w->pickid = pid;
		return 1;
	}
	w->first = 0;
	if (!w->codeonly)
		return 1;
	if (clen > 0 && strncmp(w->sn->breadcrumb, crumb, clen) == 0 &&
	    strncmp(w->sn->breadcrumb + clen, " > ", 3) == 0) {
		w->pickid = pid;
		return 1;
	}
	/* Rows come last-first: the final one is the document's first. */
	if (ord == 0)
		w->pickid = pid;
	return 0;
}

static int
search_expand(struct search *s, const struct snippet_pos *pos, struct snippet *sn,
    const long long *skip, size_t nskip, long room)
{
	struct search_walk w;
	const char	*text, *end;
	char		*own = NULL;
	long long	 pickid;
	struct buf	 b;
	size_t		 len, max, i;
	int		 added = 0, codeonly, flagged;

	if (pos->ord == 0 || room <= 0)
		return 0;
	codeonly = sn->ncode > 0 && strlen(sn->text) < SEARCH_EXPAND_SHORT;
	/* Walks back over the page's heading trails (an index range, no text read). */
	w.sn = sn;
	w.codeonly = codeonly;
	w.first = 1;
	w.pickid = 0;
	store_query_prev(s->q, pos->doc, pos->ord, codeonly ? SEARCH_EXPAND_LOOKBACK : 1,
	    search_expand_prev, &w);
	if (w.pickid == 0)
		return 0;
	pickid = w.pickid;
	for (i = 0; i < nskip; i++)
		if (skip[i] == pickid)
			return 0;
	/* Only the opening matters: its bytes, the one after and a "\n\n" at its end. */
	if (store_query_opening(s->q, pickid, SEARCH_EXPAND_BYTES + 2, &own, &flagged) != 1 ||
	    *own == '\0' ||
	    (s->inject != INJECT_OFF && flagged))
		goto out;
	text = own;
	/* The opening paragraph, cut at a line end when it is too long for either limit. */
	end = strstr(text, "\n\n");
	len = end != NULL ? (size_t)(end - text) : strlen(text);
	max = (size_t)room * 4 < SEARCH_EXPAND_BYTES ? (size_t)room * 4 : SEARCH_EXPAND_BYTES;
	if (len > max) {
		len = max;
		while (len > 0 && text[len] != '\n')
			len--;
		if (len == 0)
			goto out;
	}
	buf_init(&b);
	if (buf_add(&b, text, len) == -1 ||
	    (*sn->text != '\0' && buf_printf(&b, "\n\n%s", sn->text) == -1)) {
		buf_release(&b);
		added = -1;
		goto out;
	}
	/* The code blocks keep their place after the prose now before theirs. */
	for (i = 0; i < sn->ncode; i++)
		if (sn->code[i].at != DOC_CODE_AFTER)
			sn->code[i].at += b.len - strlen(sn->text);
	free(sn->text);
	sn->text = buf_detach(&b);
	added = (int)tokenize_estimate(text, len);
	sn->tokens += added;
out:
	free(own);
	return added;
}

/*
 * On a node of several (a listening PostgreSQL connection): the rows the answer will read
 * of its candidates, in one statement instead of one or two a candidate (store/query.h);
 * nothing on SQLite. A failure is logged and the reads go one by one. The whole rows and
 * trails are read only of the candidates the packing is foreseen to load; the rest in a
 * second statement when the answer goes further. Two moments (final):
 * - 1, when the index holds the candidates' places (lexindex_place: a segment written with
 *   them): called after the demotion, the hold and the stop rules, on the packing's own
 *   order, it foresees with the packing's own rule (search_pack_rule: the soft and cover
 *   stops, the room) which it loads, and those of the candidates directly under the
 *   first SEARCH_EXAMPLE_OF that are titled as search_example looks for (it may pack one
 *   right after its section); nothing more (a candidate gone since, or a cut that leaves
 *   room the rule did not foresee, costs the second statement: none of bench/scale's
 *   3,150 uniform questions needed it, nor any of t0025's).
 *   No place is read but of a candidate the index does not hold.
 * - 0, when it does not (a segment written before the places): called before the demotion,
 *   which reads every candidate's place (as do search_hold and search_example), so the
 *   statement reads them all. It foresees the order as far as this worker knows which
 *   documents are development files (search_demote_dev halves their scores; s->devdocs):
 *   those that fit the budget, were no stop rule to end it sooner; then the next
 *   SEARCH_PREFETCH_MORE, and one more for each of those whose document is not known yet (a
 *   development file moved down leaves its room to another); every candidate of at most
 *   SEARCH_PREFETCH_SMALL tokens (they fill the room the others leave); and those directly
 *   under the first SEARCH_EXAMPLE_OF.
 */
#define SEARCH_PREFETCH_MORE	4
#define SEARCH_PREFETCH_SMALL	64	/* tokens: a candidate this small is read whole */
/* A candidate of search_prefetch: the score it foresees, and its place in the ranking. */
struct search_foreseen {
	double	 score;
	size_t	 at;
};

/* qsort order of search_foreseen: best first, then as ranked. */
static int
search_foreseen_cmp(const void *a, const void *b)
{
	const struct search_foreseen *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->at < y->at ? -1 : x->at > y->at;
}

static int	search_example_title(const char *);
static int	search_pack_takes(const struct search_lib *, const struct lexindex_hit *,
	    size_t, long, long, double, uint64_t, uint64_t, long *);

static void
search_prefetch(struct search *s, const struct search_lib *lib, struct lexindex *x,
    const struct lexindex_hit *cand, size_t n, long budget, uint64_t allterms, int final)
{
	struct search_foreseen order[SEARCH_CANDIDATES];
	long long	 ids[SEARCH_CANDIDATES], doc;
	char		 whole[SEARCH_CANDIDATES], placed[SEARCH_CANDIDATES];
	char		 known[SEARCH_CANDIDATES];
	const char	*p, *t;
	int		 f;
	size_t		 first[SEARCH_EXAMPLE_OF];
	size_t		 i, j, nwhole = 0, more = 0, unknown = 0, nfirst = 0, k;
	long		 used = 0, room;
	uint64_t	 have = 0;
	double		 best = 0;

	if (!db_listening(s->db))
		return;
	if (n > SEARCH_CANDIDATES)
		n = SEARCH_CANDIDATES;
	/*
	 * The order the packing will see, as far as this worker knows the documents: those it
	 * found to be development files demoted (search_demote_dev), the others as they are.
	 */
	for (i = 0; i < n; i++) {
		doc = cand[i].doc;
		order[i].score = cand[i].score;
		order[i].at = i;
		known[i] = final || (doc > 0 && s->devdocs[doc % SEARCH_DEVDOCS_KEPT].doc == doc);
		if (!final && known[i] && s->devdocs[doc % SEARCH_DEVDOCS_KEPT].dev)
			order[i].score *= DEVDOCS_FACTOR;
	}
	if (!final)
		qsort(order, n, sizeof(*order), search_foreseen_cmp);
	for (i = 0; i < n; i++)
		if (cand[i].score > best)
			best = cand[i].score;
	memset(whole, 0, sizeof(whole));
	for (j = 0; j < n && used < budget; j++) {
		i = order[j].at;
		if (final) {
			/* as the packing decides (but for examples: below) */
			if (!search_pack_takes(lib, &cand[i], nwhole, used, budget, best,
			    have, allterms, &room))
				continue;
			whole[i] = 1;
			used += cand[i].tokens < room ? cand[i].tokens : room;
			have |= cand[i].terms;
		} else if ((whole[i] = nwhole == 0 || cand[i].tokens <= budget - used))
			used += cand[i].tokens < budget ? cand[i].tokens : budget;
		if (whole[i]) {
			unknown += !known[i];
			nwhole++;
			if (nfirst < SEARCH_EXAMPLE_OF)
				first[nfirst++] = i;
		}
	}
	/* (before the places only) then SEARCH_PREFETCH_MORE, and one for each document not
	 * known (a development file the demotion moves down leaves its room to another) */
	for (j = 0; !final && j < n && more < SEARCH_PREFETCH_MORE + unknown; j++)
		if (!whole[order[j].at]) {
			whole[order[j].at] = 1;
			nwhole++;
			more++;
		}
	/* small ones: cheap to read, and what fills the room the others leave */
	for (i = 0; !final && i < n; i++)
		if (!whole[i] && cand[i].tokens <= SEARCH_PREFETCH_SMALL) {
			whole[i] = 1;
			nwhole++;
		}
	/*
	 * the sections directly under the first packed ones: search_example may move one up
	 * (with the places known, only one titled as it looks for)
	 */
	for (i = 0; i < n; i++)
		for (j = 0; j < nfirst && !whole[i]; j++)
			if (cand[i].doc == cand[first[j]].doc &&
			    lexindex_parent_of(x, cand[i].id) == cand[first[j]].id &&
			    (!final || (lexindex_place(x, cand[i].id, &p, &t, &f) == 1 &&
			    search_example_title(t)))) {
				whole[i] = 1;
				nwhole++;
			}
	/* those to read whole first; the places only of those the index does not hold */
	for (i = 0, k = 0; i < n; i++)
		if (whole[i])
			ids[k++] = cand[i].id;
	for (i = 0; i < n; i++)
		if (!whole[i])
			ids[k++] = cand[i].id;
	for (k = 0; k < n; k++)
		placed[k] = lexindex_place(x, ids[k], &p, &t, &f) == 1 ? (f ? 2 : 1) : 0;
	(void)store_query_prefetch(s->q, lib->id, ids, placed, n, nwhole,
	    SEARCH_EXPAND_BYTES + 2,
	    SEARCH_EXPAND_SHORT, SEARCH_EXPAND_LOOKBACK);
}

/*
 * The cache entry of a library: found, or a new one (the array grows up to
 * SEARCH_MAPPED_MAX entries), or the least recently used one made over. NULL when out of
 * memory.
 */
static struct search_cached *
search_slot(struct search *s, const struct search_lib *lib)
{
	struct search_cached *c, *slot = NULL;
	size_t		 i;

	s->clock++;
	for (i = 0; i < s->ncache; i++) {
		c = &s->cache[i];
		if (c->id[0] != '\0' && strcmp(c->id, lib->id) == 0) {
			c->used = s->clock;
			return c;
		}
		if (slot == NULL || (slot->id[0] != '\0' && (c->id[0] == '\0' ||
		    c->used < slot->used)))
			slot = c;
	}
	if ((slot == NULL || slot->id[0] != '\0') && s->ncache < SEARCH_MAPPED_MAX) {
		if (s->ncache == s->capcache) {
			size_t ncap = s->capcache ? s->capcache * 2 : 16;
			struct search_cached *nc;

			if (ncap > SEARCH_MAPPED_MAX)
				ncap = SEARCH_MAPPED_MAX;
			if ((nc = reallocarray(s->cache, ncap, sizeof(*nc))) == NULL)
				return NULL;
			s->cache = nc;
			s->capcache = ncap;
		}
		slot = &s->cache[s->ncache++];
		memset(slot, 0, sizeof(*slot));
	}
	lexindex_free(slot->x);
	vector_index_free(slot->v);
	if (slot->copy != NULL) {
		store_query_close(slot->copy);
		s->ncopies--;
	}
	memset(slot, 0, sizeof(*slot));
	snprintf(slot->id, sizeof(slot->id), "%s", lib->id);
	slot->used = s->clock;
	return slot;
}

/* This process's memory held by cache entry c's indexes (mapped vectors hold none). */
static size_t
search_private(const struct search_cached *c)
{
	return (c->x != NULL ? lexindex_bytes(c->x) : 0) +
	    (c->v != NULL && !vector_index_wrapped(c->v) ? vector_index_bytes(c->v) : 0);
}

/*
 * Keeps the private memory of the cached indexes within s->private_max (SEARCH_PRIVATE_BYTES),
 * but keep's: the least recently used others give theirs back (a built index or a vector
 * index is freed, a mapped index keeps its mapping and frees its scratch arrays).
 */
static void
search_bound_private(struct search *s, const struct search_cached *keep)
{
	struct search_cached *c, *lru;
	size_t		 i, total;

	for (;;) {
		total = 0;
		lru = NULL;
		for (i = 0; i < s->ncache; i++) {
			c = &s->cache[i];
			if (search_private(c) == 0)
				continue;
			total += search_private(c);
			if (c != keep && (lru == NULL || c->used < lru->used))
				lru = c;
		}
		if (total <= s->private_max || lru == NULL)
			return;
		/* mapped vectors stay: a segment's vectors are tried once (search_vecsegment) */
		if (lru->v != NULL && !vector_index_wrapped(lru->v)) {
			vector_index_free(lru->v);
			lru->v = NULL;
		}
		if (lru->x != NULL && lexindex_mapped(lru->x))
			lexindex_trim(lru->x);
		else {
			lexindex_free(lru->x);
			lru->x = NULL;
		}
	}
}

/*
 * 1 when the store may be looked at for c's library now: the first time for its
 * index_version, then once every SEARCH_FETCH_RETRY seconds (recorded); else 0.
 */
static int
search_fetch_due(struct search_cached *c, const struct search_lib *lib)
{
	time_t	 now = time(NULL);

	if (c->fetch_version == lib->index_version && c->fetch_at != 0 &&
	    now >= c->fetch_at && now - c->fetch_at < SEARCH_FETCH_RETRY)
		return 0;
	c->fetch_version = lib->index_version;
	c->fetch_at = now;
	return 1;
}

/* What search_fetch_run fetches. */
struct search_fetching {
	struct db	*db;
	const char	*dir, *name;
};

static int
search_fetch_run(void *arg)
{
	const struct search_fetching *f = arg;

	return segstore_fetch(f->db, f->dir, f->name, 0, NULL) == 0 ? 0 : -1;
}

/*
 * Fetches the stored segment name into the folder dir, the
 * library's store row having been found: store/segstore.h checks it chunk by chunk against
 * its row (size, at most SEGSTORE_MAX_BYTES; SHA-256) and renames it into place, so a
 * process that maps the name meanwhile sees the old file or the new one, whole.
 *
 * Cost: the segment's bytes read from the database (a round trip a 1 MiB chunk) and
 * written to disk, about a second for 100 MB; it holds up only the question being answered
 * by this process (the other query workers keep serving), and is paid once a node: the next
 * questions, in every process, map the file. Building the index from the database instead
 * costs more for a large library, and in every process.
 *
 * One fetch of a name at a time on this node (segment_fetch_once: a lock file): a process
 * that finds another fetching the name waits at most SEARCH_FETCH_WAIT_MS, then maps the
 * file the other one put there, or gives up and builds from the database meanwhile. Once
 * fetched, the library's older segments here are removed (their writer removed its own,
 * on its node; a process still mapping one keeps reading it until it maps the new one).
 * 0 a new file is at dir/name, -1 not (logged).
 */
static int
search_fetch(struct search *s, const struct search_lib *lib, const char *dir,
    const char *name)
{
	struct search_fetching f = { s->db, dir, name };
	long long	 t0 = util_now_ms();

	if (mkdir(dir, 0750) == -1 && errno != EEXIST) {
		log_warn("%s: %s: %s", lib->id, dir, strerror(errno));
		return -1;
	}
	if (segment_fetch_once(dir, name, SEARCH_FETCH_WAIT_MS, search_fetch_run, &f) == -1) {
		if (errno == ETIMEDOUT)
			log_warn("%s: %s: another process is still fetching it from the "
			    "database", lib->id, name);
		else
			log_warn("%s: %s could not be fetched from the database", lib->id,
			    name);
		return -1;
	}
	log_info("%s: %s fetched from the database in %lld ms", lib->id, name,
	    util_now_ms() - t0);
	/* this node's copies of the library's older versions are never served again */
	if (segment_remove_older(dir, lib->lib_no, lib->index_version) == -1)
		log_warn("%s: %s: %s", lib->id, dir, strerror(errno));
	return 0;
}

/*
 * The library's index mapped from its segment, DATA_DIR/segments/<lib_no>-<index_version>.seg
 * (written by the worker at the end of an index run: lib/index/segwrite.c), or NULL when
 * there is none or it is refused (logged): the caller builds from the database. With
 * PostgreSQL, a segment missing here that another node's worker stored in the database is
 * fetched first (search_fetch).
 */
static struct lexindex *
search_segment(struct search *s, const struct search_lib *lib, struct search_cached *c)
{
	struct lexindex	*x;
	struct segstore_info info;
	char		 sdir[1024], name[64], path[1100], why[128];
	const char	*dir = util_data_dir();

	if (dir == NULL || snprintf(sdir, sizeof(sdir), "%s/segments", dir) >=
	    (int)sizeof(sdir))
		return NULL;
	snprintf(name, sizeof(name), "%ld-%lld.seg", lib->lib_no, lib->index_version);
	snprintf(path, sizeof(path), "%s/%s", sdir, name);
	if ((x = lexindex_map(path, why, sizeof(why))) == NULL && errno != ENOENT)
		log_warn("%s: %s: %s", lib->id, path, *why != '\0' ? why : strerror(errno));
	else if (x == NULL && segstore_enabled(s->db) && search_fetch_due(c, lib) &&
	    segstore_describe(s->db, name, &info) == 0 &&
	    search_fetch(s, lib, sdir, name) == 0 &&
	    (x = lexindex_map(path, why, sizeof(why))) == NULL)
		log_warn("%s: %s: %s", lib->id, path, *why != '\0' ? why : strerror(errno));
	return x;
}

/*
 * The lexical index of a library: mapped from its segment, else (no valid segment yet)
 * built into memory from the database; loaded on first use and again when the library was
 * re-indexed. NULL when neither works (logged).
 */
static struct lexindex *
search_lexindex(struct search *s, const struct search_lib *lib,
    struct search_cached *c)
{
	if (c->x != NULL && c->version == lib->index_version)
		return c->x;
	lexindex_free(c->x);
	if ((c->x = search_segment(s, lib, c)) != NULL) {
		c->version = lib->index_version;
		return c->x;
	}
	log_warn("%s: %s (%ld snippets) has no index segment: its index is built in "
	    "this process's memory until an index run writes one", __func__, lib->id,
	    lib->snippets);
	if ((c->x = lexindex_build(s->db, s->stem, lib->id, lib->snippets)) == NULL) {
		log_err("%s: %s: its index could not be built from the database",
		    __func__, lib->id);
		return NULL;
	}
	c->version = lib->index_version;
	return c->x;
}

/* What search_copy_run builds. */
struct search_copying {
	struct db	*db;
	const struct search_lib *lib;
	const char	*path;
};

static int
search_copy_run(void *arg)
{
	const struct search_copying *f = arg;

	return localcopy_build(f->db, f->lib->id, f->lib->lib_no, f->lib->index_version,
	    SEARCH_COPY_MAX_SNIPPETS, f->path) == 0 ? 0 : -1;
}

/* Closes the least recently used open copy but keep's (SEARCH_COPIES_OPEN). */
static void
search_copy_evict(struct search *s, const struct search_cached *keep)
{
	struct search_cached *lru = NULL;
	size_t		 i;

	for (i = 0; i < s->ncache; i++)
		if (s->cache[i].copy != NULL && &s->cache[i] != keep &&
		    (lru == NULL || s->cache[i].used < lru->used))
			lru = &s->cache[i];
	if (lru == NULL)
		return;
	store_query_close(lru->copy);
	lru->copy = NULL;
	lru->copy_version = 0;		/* opened again at its next question */
	s->ncopies--;
}

/* The folder of the node's copies, and the file name and path of lib's current version's. */
static int
search_copy_path(const struct search_lib *lib, char *cdir, size_t cdirsz, char *name,
    size_t namesz, char *path, size_t pathsz)
{
	const char	*dir = util_data_dir();

	if (dir == NULL || snprintf(cdir, cdirsz, "%s/copies", dir) >= (int)cdirsz)
		return -1;
	snprintf(name, namesz, "%ld-%lld.db", lib->lib_no, lib->index_version);
	return snprintf(path, pathsz, "%s/%s", cdir, name) >= (int)pathsz ? -1 : 0;
}

int
search_copy_build(struct search *s, const struct search_lib *lib)
{
	struct search_copying f;
	char		 cdir[1024], name[64], path[1100];
	struct stat	 st;

	if (search_copy_budget(s, lib->snippets) == 0 || search_copy_path(lib, cdir,
	    sizeof(cdir), name, sizeof(name), path, sizeof(path)) == -1) {
		errno = EINVAL;
		return -1;
	}
	if (stat(path, &st) == 0)
		return 0;
	if (mkdir(cdir, 0750) == -1 && errno != EEXIST) {
		log_warn("%s: %s: %s", lib->id, cdir, strerror(errno));
		return -1;
	}
	f.db = s->db;
	f.lib = lib;
	f.path = path;
	if (segment_fetch_once(cdir, name, 0, search_copy_run, &f) == -1)
		return -1;
	/* this node's copies of older versions are never read again */
	if (segment_remove_older_as(cdir, ".db", lib->lib_no, lib->index_version) == -1 ||
	    segment_bound_folder(cdir, ".db", s->copies_bytes, name, NULL, NULL) == -1)
		log_warn("%s: %s: %s", lib->id, cdir, strerror(errno));
	return 0;
}

long long
search_copy_budget(const struct search *s, long snippets)
{
	if (!db_listening(s->db) || snippets > SEARCH_COPY_MAX_SNIPPETS)
		return 0;
	return s->copies_bytes;
}

void
search_set_copier(struct search *s, int fd)
{
	s->copier_fd = fd;
}

/*
 * Asks the node's copier (search_set_copier) for lib's copy: one line "<lib_no>
 * <index_version> <id>" written at once (shorter than PIPE_BUF: never interleaved with
 * another worker's), or dropped when the pipe is full (asked again later).
 */
static void
search_copy_ask(struct search *s, const struct search_lib *lib)
{
	char	 line[SEARCH_COPY_ASK_MAX];
	int	 n;

	n = snprintf(line, sizeof(line), "%ld %lld %s\n", lib->lib_no, lib->index_version,
	    lib->id);
	if (n < 0 || n >= (int)sizeof(line))
		return;
	if (write(s->copier_fd, line, (size_t)n) != n && errno != EAGAIN)
		log_warn("%s: the copier: %s", lib->id, strerror(errno));
}

int
search_copy_asked(const char *line, size_t len, long long *lib_no, char *id, size_t idsz,
    long long *index_version)
{
	const char	*p = line, *end = line + len, *sp;
	char		 num[24];
	long		 v[2];
	int		 i;

	for (i = 0; i < 2; i++) {
		if ((sp = memchr(p, ' ', (size_t)(end - p))) == NULL || sp == p ||
		    sp - p >= (long)sizeof(num))
			return -1;
		memcpy(num, p, (size_t)(sp - p));
		num[sp - p] = '\0';
		if (util_parse_long(num, 1, LONG_MAX, &v[i]) == -1)
			return -1;
		p = sp + 1;
	}
	if (p == end || (size_t)(end - p) >= idsz || memchr(p, '\0', (size_t)(end - p)) != NULL)
		return -1;
	memcpy(id, p, (size_t)(end - p));
	id[end - p] = '\0';
	*lib_no = v[0];
	*index_version = v[1];
	return 0;
}

/*
 * The statements of the library's local copy of its current version (SEARCH_COPIES_OPEN's
 * comment), opened when it is there; NULL when not (SQLite; copies turned off; a library
 * too large; not built yet: asked of the node's copier, search_set_copier, and meanwhile
 * the question reads the database; a failure, logged: tried again after
 * SEARCH_FETCH_RETRY s). Without a copier (a plain CGI run, a test's process) the question
 * builds it (at most one a SEARCH_COPY_GAP_MS a process).
 */
static struct store_query *
search_copy(struct search *s, const struct search_lib *lib, struct search_cached *c)
{
	struct db	*db;
	char		 cdir[1024], name[64], path[1100], why[160];
	time_t		 now = time(NULL);

	if (!db_listening(s->db) || s->copies_bytes == 0)
		return NULL;
	if (c->copy != NULL && c->copy_version == lib->index_version)
		return c->copy;
	if (c->copy != NULL) {
		store_query_close(c->copy);
		c->copy = NULL;
		s->ncopies--;
	} else if (c->copy_version == lib->index_version && c->copy_at != 0 &&
	    now >= c->copy_at && now - c->copy_at < SEARCH_FETCH_RETRY)
		return NULL;
	if (c->copy_version != lib->index_version)
		c->copy_asked = 0;
	c->copy_version = lib->index_version;
	c->copy_at = now;
	if (search_copy_path(lib, cdir, sizeof(cdir), name, sizeof(name), path,
	    sizeof(path)) == -1)
		return NULL;
	if ((db = localcopy_open(path, lib->id, lib->lib_no, lib->index_version, why,
	    sizeof(why))) == NULL && errno != ENOENT) {
		/* not this version's copy, or unreadable: built again below */
		log_warn("%s: %s: %s: built again", lib->id, path, why);
		(void)unlink(path);
	}
	if (db == NULL) {
		if (lib->snippets > SEARCH_COPY_MAX_SNIPPETS)
			return NULL;
		if (s->copier_fd != -1) {
			/* looked for again at the next question; asked again if still missing */
			c->copy_at = 0;
			if (c->copy_asked == 0 || now < c->copy_asked ||
			    now - c->copy_asked >= SEARCH_COPY_ASK_AGAIN) {
				c->copy_asked = now;
				search_copy_ask(s, lib);
			}
			return NULL;
		}
		if (s->copy_built_ms != 0 && util_now_ms() - s->copy_built_ms <
		    SEARCH_COPY_GAP_MS) {
			c->copy_at = 0;		/* another question builds it */
			return NULL;
		}
		s->copy_built_ms = util_now_ms();
		if (search_copy_build(s, lib) == -1) {
			if (errno == ETIMEDOUT)
				c->copy_at = 0;		/* another process builds it */
			return NULL;
		}
		if ((db = localcopy_open(path, lib->id, lib->lib_no, lib->index_version, why,
		    sizeof(why))) == NULL) {
			log_warn("%s: %s: %s", lib->id, path, why);
			return NULL;
		}
	} else
		(void)utimensat(AT_FDCWD, path, NULL, 0);	/* recently used: kept */
	if (s->ncopies >= s->maxcopies)
		search_copy_evict(s, c);
	if ((c->copy = store_query_open_copy(db)) == NULL)
		return NULL;
	s->ncopies++;
	c->copy_at = 0;
	return c->copy;
}

/*
 * With PostgreSQL: when the segment file here (c->vseg: its vectors) does not hold the
 * vectors of model at the library's embed_version and the store does (another node's
 * worker wrote and stored the segment of the new vectors under the same name), fetches it
 * over the name (search_fetch; looked at as search_fetch_due allows). 0 a new file is
 * there, -1 not.
 */
static int
search_fetch_vectors(struct search *s, const struct search_lib *lib,
    struct search_cached *c, const char *model, const char *sdir)
{
	struct segstore_info info;
	char		 name[64];

	if (!segstore_enabled(s->db) || (c->vseg.embed_version == lib->embed_version &&
	    strcmp(c->vseg.model, model) == 0) || !search_fetch_due(c, lib))
		return -1;
	snprintf(name, sizeof(name), "%ld-%lld.seg", lib->lib_no, lib->index_version);
	if (segstore_describe(s->db, name, &info) != 0 ||
	    info.embed_version != lib->embed_version || strcmp(info.vec_model, model) != 0)
		return -1;
	return search_fetch(s, lib, sdir, name);
}

/*
 * The vectors of the library's segment (lib/search/vecseg.h) when they are those of model
 * at the library's embed_version, mapped; else NULL. Each file (by inode) is tried once: a
 * file whose vectors are of another version or model, or that has none, is not mapped again
 * until a new file is renamed over the name (by this node's worker, or by a fetch of the
 * one another node stored: search_fetch_vectors).
 */
static struct vecindex *
search_vecsegment(struct search *s, const struct search_lib *lib, struct search_cached *c,
    const char *model)
{
	struct vecseg_info info;
	struct vecindex	*m;
	char		 sdir[1024], path[1100], why[128];
	const char	*dir = util_data_dir();
	int		 fetched = 0;

	if (dir == NULL || snprintf(sdir, sizeof(sdir), "%s/segments", dir) >=
	    (int)sizeof(sdir))
		return NULL;
	snprintf(path, sizeof(path), "%s/%ld-%lld.seg", sdir, lib->lib_no, lib->index_version);
again:
	if (c->vseg.ino != 0 && vecseg_same_file(path, &c->vseg)) {
		if (fetched || search_fetch_vectors(s, lib, c, model, sdir) == -1)
			return NULL;
		fetched = 1;
	}
	m = vecseg_map(path, &info, why, sizeof(why));
	if (m == NULL && errno == EINVAL)
		log_warn("%s: %s: %s", lib->id, path, why);
	c->vseg = info;		/* its identity, mapped or not */
	if (m != NULL && (strcmp(info.model, model) != 0 ||
	    info.embed_version != lib->embed_version)) {
		vector_index_free(m);
		m = NULL;
	}
	if (m == NULL && !fetched && info.ino != 0 &&
	    search_fetch_vectors(s, lib, c, model, sdir) == 0) {
		fetched = 1;
		goto again;
	}
	/* a lexical mapping of this version is of the file replaced: mapped again next */
	if (fetched && c->x != NULL && c->version == lib->index_version &&
	    lexindex_mapped(c->x))
		c->version = -1;
	return m;
}

/*
 * The library's vectors of the configured embedding model, reloaded when they change and
 * when the index is rewritten: a re-index deletes the snippets (and their vectors) before
 * the embed step gives the library a new embed_version, and vectors of deleted snippets
 * must not come back as candidates (bench/soak found them answering 500).
 *
 * They are mapped from the library version's segment when it holds the vectors of this
 * model at this embed_version (no private copy); else built from the database into this
 * process's memory, within its budget (SEARCH_PRIVATE_BYTES). How a reader learns of new vectors:
 * the libraries row, read for every question, gives embed_version; when it differs from
 * the one of the vectors held (the embed step wrote new vectors, or another version of the
 * library shared its vectors, lib/index/share.h), the process builds from the database
 * until the worker has written the segment of the new embed_version under the same name
 * (<lib_no>-<index_version>.seg, renamed over the old file); while it holds built vectors
 * it looks at the name's inode on each question (one stat), and maps the new file once it
 * appears. Then the lexical mapping is renewed from the new file too, on the next question,
 * so that no process keeps the replaced file's disk space for long.
 */
static struct vecindex *
search_vecindex(struct search *s, const struct search_lib *lib,
    struct search_cached *c)
{
	const char	*model = s->embed.model;
	struct vecindex	*m;
	int		 current;

	if (s->embed.vendor == NULL || model == NULL || *model == '\0')
		return NULL;
	current = c->v != NULL && c->embed_version == lib->embed_version &&
	    c->vec_index == lib->index_version && strcmp(c->model, model) == 0;
	if (current && vector_index_wrapped(c->v))
		return c->v;
	if ((m = search_vecsegment(s, lib, c, model)) != NULL) {
		/*
		 * Vectors of this index_version were held before: the lexical mapping, made
		 * then, is of the replaced file. (Not so in a process's first question: both
		 * are of the file it just mapped.)
		 */
		if (c->v != NULL && c->vec_index == lib->index_version && c->x != NULL &&
		    lexindex_mapped(c->x))
			c->version = -1;	/* remapped by the next search_lexindex */
		vector_index_free(c->v);
		c->v = m;
		c->embed_version = lib->embed_version;
		c->vec_index = lib->index_version;
		snprintf(c->model, sizeof(c->model), "%s", model);
		c->vec_big = 0;
		return c->v;
	}
	if (current || (c->vec_big && c->embed_version == lib->embed_version &&
	    c->vec_index == lib->index_version && strcmp(c->model, model) == 0))
		return c->v;
	vector_index_free(c->v);
	c->vec_big = 0;
	if ((c->v = vector_index_build(s->db, lib->id, model, lib->snippets)) == NULL)
		return NULL;
	c->embed_version = lib->embed_version;
	c->vec_index = lib->index_version;
	snprintf(c->model, sizeof(c->model), "%s", model);
	/*
	 * Built vectors are private memory (the segment has none of this version yet): a
	 * library's that alone exceed the budget are not kept, and its answers are lexical
	 * until its vectors, their segment or the model change (checked once, not rebuilt for
	 * every question).
	 */
	if (vector_index_bytes(c->v) > s->private_max) {
		log_warn("%s: %s: its vectors (%zu bytes) exceed the query worker's memory "
		    "budget (%zu): lexical answers only", __func__, lib->id,
		    vector_index_bytes(c->v), s->private_max);
		vector_index_free(c->v);
		c->v = NULL;
		c->vec_big = 1;
	}
	return c->v;
}

/* Re-reads the AI provider settings at most every SEARCH_PROVIDER_TTL seconds. */
static void
search_provider(struct search *s)
{
	time_t	 now = time(NULL);

	if (s->embed_at != 0 && now - s->embed_at < SEARCH_PROVIDER_TTL)
		return;
	provider_cfg_release(&s->llm);
	provider_cfg_release(&s->embed);
	memset(&s->llm, 0, sizeof(s->llm));
	memset(&s->embed, 0, sizeof(s->embed));
	if (aiconfig_load(s->db, util_data_dir(), &s->llm, &s->embed) == -1) {
		provider_cfg_release(&s->llm);
		provider_cfg_release(&s->embed);
		memset(&s->llm, 0, sizeof(s->llm));
		memset(&s->embed, 0, sizeof(s->embed));
	}
	s->embed_at = now;
}

/* Snippets shown to the LLM reranker, and the prose of each it sees. */
#define SEARCH_RERANK_TOP	20
#define SEARCH_RERANK_TEXT	400
/* Time budget of the reranking call; past it the order stays as it was. */
#define SEARCH_RERANK_DEADLINE_MS	5000

static const char search_rerank_system[] =
    "You rank documentation snippets by how well they answer a developer's question. "
    "Reply with only a JSON array of the snippet numbers, most relevant first.";

/*
 * LLM reranking of the best candidates: the question and, per snippet, its number,
 * heading trail and the start of its prose (nothing else leaves the instance) go to the
 * LLM, whose JSON array of numbers reorders them; numbers it leaves out keep their order
 * after the listed ones. Any failure (deadline, error, an answer without a usable array)
 * keeps the order as it was.
 */
static void
search_llm_rerank(struct search *s, const char *query, struct lexindex_hit *cand,
    size_t ncand)
{
	struct lexindex_hit top[SEARCH_RERANK_TOP];
	struct provider_error perr;
	struct snippet	 sn;
	struct buf	 prompt, answer;
	size_t		 n = ncand < SEARCH_RERANK_TOP ? ncand : SEARCH_RERANK_TOP;
	size_t		 i, k = 0, len;
	char		 used[SEARCH_RERANK_TOP + 1], *p, *end;
	long		 v;

	if (n < 2)
		return;
	buf_init(&prompt);
	buf_init(&answer);
	if (buf_printf(&prompt, "Question: %s\n\nSnippets:\n", query) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		memset(&sn, 0, sizeof(sn));
		if (search_load(s, cand[i].id, &sn, NULL) != 0) {
			format_snippet_release(&sn);
			goto out;
		}
		/* The start of the prose, cut at a character (UTF-8) boundary. */
		len = strlen(sn.text);
		if (len > SEARCH_RERANK_TEXT) {
			len = SEARCH_RERANK_TEXT;
			while (len > 0 && ((unsigned char)sn.text[len] & 0xc0) == 0x80)
				len--;
		}
		if (buf_printf(&prompt, "[%zu] %s\n%.*s\n\n", i + 1,
		    *sn.breadcrumb ? sn.breadcrumb : sn.title, (int)len,
		    sn.text) == -1) {
			format_snippet_release(&sn);
			goto out;
		}
		format_snippet_release(&sn);
	}
	if (buf_adds(&prompt, "Reply with the snippet numbers as a JSON array, most "
	    "relevant first.") == -1)
		goto out;
	memset(&perr, 0, sizeof(perr));
	if (provider_chat(&s->llm, search_rerank_system, prompt.p,
	    SEARCH_RERANK_DEADLINE_MS, &answer, &perr) == -1) {
		log_warn("%s: no reranking (%s: %s)", __func__,
		    provider_errkind_name(perr.kind), perr.message);
		goto out;
	}
	if (answer.p == NULL || (p = strchr(answer.p, '[')) == NULL ||
	    strchr(p, ']') == NULL) {
		log_warn("%s: no reranking: the LLM's answer has no JSON array", __func__);
		goto out;
	}
	memset(used, 0, sizeof(used));
	for (p++; *p != '\0' && *p != ']'; p = end) {
		v = strtol(p, &end, 10);
		if (end == p) {
			end = p + 1;
			continue;
		}
		if (v >= 1 && (size_t)v <= n && !used[v]) {
			used[v] = 1;
			top[k++] = cand[v - 1];
		}
	}
	if (k == 0) {
		log_warn("%s: no reranking: the LLM listed no snippet", __func__);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!used[i + 1])
			top[k++] = cand[i];
	/* Each place keeps its score (cand was best first), so scores follow the new order. */
	for (i = 0; i < n; i++)
		top[i].score = cand[i].score;
	memcpy(cand, top, n * sizeof(*cand));
out:
	buf_release(&prompt);
	buf_release(&answer);
}

/*
 * Hybrid step: embeds the question (within SEARCH_EMBED_DEADLINE_MS) and fuses the
 * vector ranking with the lexical one by reciprocal rank into cand. Any failure leaves
 * the lexical ranking as it is: a slow or failing provider never fails an answer.
 * Returns 1 when the rankings were fused, else 0.
 */
static int
search_hybrid(struct search *s, struct vecindex *v, const char *query,
    struct lexindex_hit *cand, size_t *ncand)
{
	struct lexindex_hit *vh = NULL, *fused = NULL;
	struct provider_error perr;
	float		*qv = NULL;
	size_t		 dim = 0, nv = 0, nf = 0;
	int		 fusedok = 0;

	if (vector_index_count(v) == 0)
		return 0;
	memset(&perr, 0, sizeof(perr));
	if (provider_embed(&s->embed, &query, 1, PROVIDER_EMBED_QUERY,
	    SEARCH_EMBED_DEADLINE_MS, &qv, &dim, &perr) == -1) {
		log_warn("%s: the question was not embedded (%s: %s); lexical ranking "
		    "only", __func__, provider_errkind_name(perr.kind), perr.message);
		return 0;
	}
	if ((vh = calloc(SEARCH_CANDIDATES, sizeof(*vh))) == NULL ||
	    (fused = calloc(SEARCH_CANDIDATES, sizeof(*fused))) == NULL)
		goto out;
	if (vector_index_search(v, qv, dim, SEARCH_CANDIDATES, vh, &nv) == -1) {
		log_warn("%s: the question's vector does not fit the index (dim %zu); "
		    "lexical ranking only", __func__, dim);
		goto out;
	}
	if (vector_rrf(cand, *ncand, vh, nv, VECTOR_RRF_K, fused, SEARCH_CANDIDATES,
	    &nf) == 0) {
		memcpy(cand, fused, nf * sizeof(*cand));
		*ncand = nf;
		fusedok = 1;
	}
out:
	free(qv);
	free(vh);
	free(fused);
	return fusedok;
}

/*
 * content.injection=hold: leaves the flagged snippets out of the candidates, before any
 * reranker or the answer sees them. Each candidate's flag comes from the index when it
 * holds places; else from the store (one index probe when the library has none).
 */
static int
search_hold(struct search *s, struct lexindex *x, const struct search_lib *lib,
    struct lexindex_hit *cand, size_t *ncand)
{
	const char	*p, *t;
	size_t		 i, k;
	int		 any = -2, f;	/* -2: not asked yet */

	for (i = 0, k = 0; i < *ncand; i++) {
		if (lexindex_place(x, cand[i].id, &p, &t, &f) != 1) {
			if (any == -2 && (any = store_query_any_flagged(s->q, lib->id)) == -1)
				return -1;
			if ((f = any ? store_query_flagged(s->q, cand[i].id) : 0) == -1)
				return -1;
		}
		if (f == 0)
			cand[k++] = cand[i];
	}
	*ncand = k;
	return 0;
}

/* The mode of content.injection (lib/search/inject.h); hold when it cannot be read. */
static enum inject_mode
search_inject_mode(struct search *s)
{
	char	 v[32];

	if (store_query_setting(s->q, INJECT_SETTING, v, sizeof(v)) != 1)
		return INJECT_HOLD;
	return inject_mode_parse(v);
}

/*
 * 1 when snippet a of the answer encloses snippet b (or is an earlier part of it), by
 * their heading trails; never for a snippet without one.
 */
static int
search_encloses(const struct snippet *res, const long long *docs,
    const struct snippet_pos *pos, size_t a, size_t b)
{
	size_t	 len = strlen(res[a].breadcrumb);

	if (docs[a] != docs[b] || pos[a].ord >= pos[b].ord || len == 0)
		return 0;
	if (strcmp(res[a].breadcrumb, res[b].breadcrumb) == 0)
		return 1;
	return strncmp(res[a].breadcrumb, res[b].breadcrumb, len) == 0 &&
	    strncmp(res[b].breadcrumb + len, " > ", 3) == 0;
}

/*
 * The heading trail a subsection needs when what encloses it is not read before it: the
 * trail of its enclosing sections ("Page > Section"), set as sn->trail. Nothing for a page's
 * own section or for one whose encloser comes earlier in the answer.
 */
static int
search_trail(struct snippet *res, const long long *docs, const struct snippet_pos *pos,
    const size_t *idx, size_t at)
{
	struct snippet	*sn = &res[idx[at]];
	const char	*crumb = sn->breadcrumb, *last;
	size_t		 j;

	if (crumb == NULL || (last = strstr(crumb, " > ")) == NULL)
		return 0;
	for (j = 0; j < at; j++)
		if (search_encloses(res, docs, pos, idx[j], idx[at]))
			return 0;
	/* The trail without its own heading (the answer's "### title" line shows it). */
	for (last = crumb + strlen(crumb); last > crumb; last--)
		if (strncmp(last, " > ", 3) == 0)
			break;
	if (last == crumb)
		return 0;
	if ((sn->trail = strndup(crumb, (size_t)(last - crumb))) == NULL)
		return -1;
	return 0;
}

/*
 * Orders an answer's snippets best first (res and their ids, with their pages docs, their
 * places pos and their ranking scores, in packing order; n of each, at most
 * SEARCH_CANDIDATES): the k-th snippet of one page counts with its score damped by
 * SEARCH_DIVERSITY^(k-1), so that the answer opens with the best section, the best section
 * of each further page that matches follows, and the further sections of a strong page
 * after them. A subsection that outscores what encloses it stays in its place: it gets the
 * heading trail of its enclosing sections instead (search_trail), so an agent reading from
 * the top meets the best section first (moving the enclosing section up, or the best one
 * down, lost Hit@1 and MRR@10 on bench/eval: bench/README.md, "answer order"). Only the
 * order changes: which snippets are packed was decided on the undamped scores, so the
 * room goes to more sections of the strongest pages rather than to weaker pages (damping
 * the choice too lost one answer in ten on bench/eval: bench/README.md, "Compact,
 * complete answers").
 */
#define SEARCH_DIVERSITY	0.5
static int
search_order(struct snippet *res, long long *ids, const long long *docs,
    const struct snippet_pos *pos, const double *scores, size_t n)
{
	struct snippet	 sorted[SEARCH_CANDIDATES];
	long long	 sortedids[SEARCH_CANDIDATES];
	double		 key[SEARCH_CANDIDATES];
	size_t		 idx[SEARCH_CANDIDATES], i, j;

	if (n > SEARCH_CANDIDATES)
		return 0;	/* more than fit here: left in packing order */
	for (i = 0; i < n; i++) {
		key[i] = scores[i];
		for (j = 0; j < i; j++)
			if (docs[j] == docs[i])
				key[i] *= SEARCH_DIVERSITY;
	}
	/* Insertion sort of the places by key, best first; equal keys keep their order. */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && key[idx[j - 1]] < key[i]; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	for (i = 0; i < n; i++)
		if (search_trail(res, docs, pos, idx, i) == -1)
			return -1;
	for (i = 0; i < n; i++) {
		sorted[i] = res[idx[i]];
		sortedids[i] = ids[idx[i]];
	}
	if (n > 0) {
		memcpy(res, sorted, n * sizeof(*res));
		memcpy(ids, sortedids, n * sizeof(*ids));
	}
	return 0;
}

/* Each fate as a word for programs and in words, in the order of enum search_fate. */
static const struct {
	const char	*code, *name;
} search_fates[] = {
	{ "answer", "answer" },
	{ "cut", "answer, cut to fit" },
	{ "stop", "below the stop ratio" },
	{ "room", "too big for the room left" },
	{ "full", "budget spent before it" },
	{ "held", "held: flagged" },
	{ "gone", "gone" },
};

const char *
search_fate_name(enum search_fate f)
{
	return (size_t)f < sizeof(search_fates) / sizeof(search_fates[0]) ?
	    search_fates[f].name : "unknown";
}

const char *
search_fate_code(enum search_fate f)
{
	return (size_t)f < sizeof(search_fates) / sizeof(search_fates[0]) ?
	    search_fates[f].code : "unknown";
}

void
search_trace_release(struct search_trace *t)
{
	size_t	 i;

	if (t == NULL)
		return;
	for (i = 0; i < t->n; i++) {
		free(t->rows[i].source);
		free(t->rows[i].breadcrumb);
		free(t->rows[i].title);
		free(t->rows[i].text);
	}
	free(t->rows);
	for (i = 0; i < t->nterms; i++)
		free(t->terms[i]);
	free(t->terms);
	memset(t, 0, sizeof(*t));
}

/*
 * Empties the trace and records the question's terms (terms, as tokenize_match_terms
 * quotes them for FTS5: unquoted here) and the budget. 0, or -1.
 */
static int
search_trace_begin(struct search_trace *t, char **terms, size_t nterms, long budget)
{
	size_t	 i, j, k, len, end;

	search_trace_release(t);
	t->budget = budget;
	if (nterms > 0 && (t->terms = calloc(nterms, sizeof(*t->terms))) == NULL)
		return -1;
	for (i = 0; i < nterms; i++) {
		len = strlen(terms[i]);
		if ((t->terms[i] = malloc(len + 1)) == NULL)
			return -1;
		t->nterms++;
		/* "..." with "" for a quote inside */
		j = 0;
		end = len;
		if (len >= 2 && terms[i][0] == '"' && terms[i][len - 1] == '"') {
			j = 1;
			end = len - 1;
		}
		for (k = 0; j < end; j++) {
			if (terms[i][j] == '"' && j + 1 < end && terms[i][j + 1] == '"')
				j++;
			t->terms[i][k++] = terms[i][j];
		}
		t->terms[i][k] = '\0';
	}
	return 0;
}

/* Records the ranking's candidates, in its order, as still in the running. 0, or -1. */
static int
search_trace_add(struct search_trace *t, const struct lexindex_hit *cand, size_t n)
{
	size_t	 i;

	if (n == 0)
		return 0;
	if ((t->rows = calloc(n, sizeof(*t->rows))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		t->rows[i].id = cand[i].id;
		t->rows[i].score = cand[i].score;
		t->rows[i].tokens = cand[i].tokens;
		t->rows[i].terms = cand[i].terms;
		t->rows[i].fate = SEARCH_FATE_FULL;
	}
	t->n = n;
	return 0;
}

/* Gives the fate f to candidate id. */
static void
search_trace_mark(struct search_trace *t, long long id, enum search_fate f)
{
	size_t	 i;

	for (i = 0; i < t->n; i++)
		if (t->rows[i].id == id) {
			t->rows[i].fate = f;
			return;
		}
}

/* Gives the fate f to the candidates still in the running that cand no longer holds. */
static void
search_trace_left(struct search_trace *t, const struct lexindex_hit *cand, size_t n,
    enum search_fate f)
{
	size_t	 i, k;

	for (i = 0; i < t->n; i++) {
		if (t->rows[i].fate != SEARCH_FATE_FULL)
			continue;
		for (k = 0; k < n && cand[k].id != t->rows[i].id; k++)
			;
		if (k == n)
			t->rows[i].fate = f;
	}
}

/*
 * Completes the trace once the answer is ordered (ids, n, in the answer's order; used
 * tokens): each candidate's place, and its heading, source and text as the answer shows
 * them, uncut. 0, or -1.
 */
static int
search_trace_finish(struct search *s, const struct snippet *res, const long long *ids,
    size_t n, long used)
{
	struct search_trace *t = s->trace;
	struct snippet	 sn;
	struct buf	 b;
	size_t		 i, k;
	int		 ld;

	t->used = used;
	t->placed = n;
	buf_init(&b);
	for (i = 0; i < t->n; i++) {
		struct search_trace_row *r = &t->rows[i];

		for (k = 0; k < n; k++)
			if (ids[k] == r->id)
				r->place = k + 1;
		memset(&sn, 0, sizeof(sn));
		if ((ld = search_load(s, r->id, &sn, NULL)) == 1)
			continue;	/* gone */
		if (ld == -1)
			goto fail;
		/* A placed snippet with the heading trail the answer gives it. */
		if (r->place > 0 && res[r->place - 1].trail != NULL &&
		    (sn.trail = strdup(res[r->place - 1].trail)) == NULL) {
			format_snippet_release(&sn);
			goto fail;
		}
		buf_reset(&b);
		if (format_text(&b, &sn, 1) == -1 ||
		    (r->source = strdup(sn.source != NULL ? sn.source : "")) == NULL ||
		    (r->breadcrumb = strdup(sn.breadcrumb != NULL ? sn.breadcrumb : "")) ==
		    NULL || (r->title = strdup(sn.title != NULL ? sn.title : "")) == NULL ||
		    (r->text = strdup(b.len > 0 ? b.p : "")) == NULL) {
			format_snippet_release(&sn);
			goto fail;
		}
		format_snippet_release(&sn);
	}
	buf_release(&b);
	return 0;
fail:
	buf_release(&b);
	return -1;
}

/*
 * A name word said in fewer than this share of a library's snippets names it in a
 * question (libname_strip); said more often, it is a topic of the library.
 */
#define SEARCH_NAME_RARE	0.1

/*
 * Asked of an API description, these words say that the question is about an operation,
 * not which one ("the list applications endpoint"): they are left out as the library's
 * name is, however often the library says them (azureActiveDirectoryEndpoint).
 */
#define SEARCH_API_WORDS	"api apis endpoint endpoints operation operations"

/*
 * An API description's answer holds its SEARCH_API_PLACES best operations: while it has
 * fewer, each keeps SEARCH_API_HEAD tokens of room for every place still to fill (about an
 * operation's heading, summary, operationId, Keywords line and first parameters), and one
 * bigger than the room it may take is cut to it rather than left out for a smaller one
 * further down. An operation of 600 tokens (curl body, response schemas) otherwise left
 * the fifth best out of an answer of four (bench/README.md, "API answers hold five").
 */
#define SEARCH_API_PLACES	5
#define SEARCH_API_HEAD		150

/*
 * The room (tokens) the next candidate of an answer may take, holding nres snippets in used
 * tokens of budget, and *cutmin: the room below which one too big for it is left out
 * rather than cut (SEARCH_CUT_MIN but for an API description's first places).
 */
static long
search_room(const struct search_lib *lib, long budget, long used, size_t nres, long *cutmin)
{
	long	 keep;

	*cutmin = SEARCH_CUT_MIN;
	if (!lib->openapi || nres >= SEARCH_API_PLACES ||
	    budget < SEARCH_API_PLACES * SEARCH_API_HEAD)
		return budget - used;
	keep = (long)(SEARCH_API_PLACES - 1 - nres) * SEARCH_API_HEAD;
	*cutmin = SEARCH_API_HEAD;
	return budget - used - keep;
}

/*
 * Whether the packing of search_context takes candidate c next, holding nres snippets in
 * used tokens of budget that cover the question terms have (of allterms, those any
 * candidate holds; best: the best candidate's score): SEARCH_PACK_TAKE, with *room the
 * tokens it may take (cut to them); SEARCH_PACK_STOP, left out by the soft or the cover
 * stop (not an example: search_example's follows its section past both); SEARCH_PACK_ROOM,
 * too big for the room left. search_prefetch foresees the packing with it.
 */
enum search_pack { SEARCH_PACK_TAKE, SEARCH_PACK_STOP, SEARCH_PACK_ROOM };

static enum search_pack
search_pack_rule(const struct search_lib *lib, const struct lexindex_hit *c, int example,
    size_t nres, long used, long budget, double best, uint64_t have, uint64_t allterms,
    long *room)
{
	long	 cutmin;

	if (nres > 0 && !example && ((nres >= SEARCH_SOFT_MIN &&
	    used >= SEARCH_SOFT_SHARE * budget && c->score < SEARCH_SOFT_RATIO * best) ||
	    (allterms != 0 && (have & allterms) == allterms &&
	    used >= SEARCH_COVER_SHARE * budget && c->score < SEARCH_COVER_RATIO * best)))
		return SEARCH_PACK_STOP;
	*room = search_room(lib, budget, used, nres, &cutmin);
	if (nres > 0 && c->tokens > *room && *room < cutmin)
		return SEARCH_PACK_ROOM;
	return SEARCH_PACK_TAKE;
}

/* 1 when search_pack_rule takes c (not as an example), with *room. */
static int
search_pack_takes(const struct search_lib *lib, const struct lexindex_hit *c, size_t nres,
    long used, long budget, double best, uint64_t have, uint64_t allterms, long *room)
{
	return search_pack_rule(lib, c, 0, nres, used, budget, best, have, allterms, room) ==
	    SEARCH_PACK_TAKE;
}

/* libname_strip's rare() over the library's lexical index (NULL: ranked in SQLite). */
struct search_name {
	struct search	*s;
	struct lexindex	*x;
};

static int
search_name_rare(const char *w, size_t n, void *arg)
{
	struct search_name *nm = arg;

	return nm->x == NULL || lexindex_share(nm->x, nm->s->stem, w, n) < SEARCH_NAME_RARE;
}

/*
 * The lexical terms of a question asked of lib: those of the question without the words
 * that name the library (libname_strip), unless nothing is left of it.
 */
static int
search_terms(struct search *s, const struct search_lib *lib, const char *query,
    char ***terms, size_t *n)
{
	struct search_name nm;
	struct buf	 b;
	int		 rc;

	*terms = NULL;
	*n = 0;
	buf_init(&b);
	nm.s = s;
	nm.x = search_lexindex(s, lib, search_slot(s, lib));
	if ((rc = libname_strip(lib->id, lib->title, lib->openapi ? SEARCH_API_WORDS : NULL,
	    query, search_name_rare, &nm, &b)) == 1) {
		rc = tokenize_match_terms(b.p, terms, n);
		if (rc == 0 && *n == 0)
			rc = 1;		/* only stop words left: ask it whole */
		else if (rc == 0)
			rc = 2;
	}
	buf_release(&b);
	if (rc == -1)
		return -1;
	return rc == 2 ? 0 : tokenize_match_terms(query, terms, n);
}

/* 1 when a heading (markup and blanks around it off) is Example, Examples or Usage. */
static int
search_example_title(const char *t)
{
	static const char *const names[] = { "example", "examples", "usage",
	    "example usage" };
	size_t	 len, i;

	while (*t == '`' || *t == '#' || *t == ' ')
		t++;
	len = strlen(t);
	while (len > 0 && (t[len - 1] == '`' || t[len - 1] == '#' || t[len - 1] == ' '))
		len--;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && strncasecmp(t, names[i], len) == 0)
			return 1;
	return 0;
}

/*
 * The example of packed candidate at: the first later candidate that the index holds as a
 * section enclosed by it (lexindex_parent_of) and that is titled as search_example_title
 * says is moved to place at + 1 of cand (the others keep their order). Returns 1 when one
 * was, 0 when none.
 */
static int
search_example(struct search *s, struct lexindex *x, struct lexindex_hit *cand,
    size_t ncand, size_t at)
{
	struct lexindex_hit h;
	char		 path[1024], title[256];
	size_t		 j;

	for (j = at + 1; j < ncand; j++) {
		if (cand[j].doc != cand[at].doc ||
		    lexindex_parent_of(x, cand[j].id) != cand[at].id ||
		    search_place(s, x, cand[j].id, path, sizeof(path), title,
		    sizeof(title)) != 1 || !search_example_title(title))
			continue;
		h = cand[j];
		memmove(&cand[at + 2], &cand[at + 1], (j - at - 1) * sizeof(*cand));
		cand[at + 1] = h;
		return 1;
	}
	return 0;
}

int
search_context(struct search *s, const struct search_lib *lib, const char *query,
    long budget, int fast, struct snippet **out, size_t *n)
{
	struct lexindex_hit *cand = NULL;
	struct search_cached *slot;
	struct lexindex	*x;
	struct vecindex	*v;
	struct snippet	*res = NULL;
	long long	*ids = NULL;
	struct snippet_pos *pos = NULL;
	long long	*docs = NULL;
	double		*scores = NULL, best;
	char		**terms = NULL;
	long		 used = 0, room;
	size_t		 nterms = 0, ncand = 0, nres = 0, i;
	uint64_t	 allterms = 0, have = 0;
	int		 rc = -1, ld, hybrid = 0, forced = 0, late;

	*out = NULL;
	*n = 0;
	if (search_terms(s, lib, query, &terms, &nterms) == -1)
		return -1;
	if (s->trace != NULL && search_trace_begin(s->trace, terms, nterms, budget) == -1) {
		tokenize_terms_free(terms, nterms);
		return -1;
	}
	if (nterms == 0)
		return 0;
	if ((cand = calloc(SEARCH_CANDIDATES, sizeof(*cand))) == NULL)
		goto out;
	s->libid = lib->id;	/* the snippets as this library shows them (search_load) */
	/* The same ranking at every size: the index mapped or built (search_lexindex). */
	/* an API's resource words are in most of its operations: they still count */
	if ((slot = search_slot(s, lib)) == NULL ||
	    (x = search_lexindex(s, lib, slot)) == NULL ||
	    lexindex_search(x, s->stem, terms, nterms, LEXINDEX_PROXIMITY |
	    (lib->openapi ? LEXINDEX_IDF_FLOOR : 0), cand, SEARCH_CANDIDATES, &ncand) == -1)
		goto out;
	/* the rows the answer reads: the node's copy of the library (PostgreSQL) */
	store_query_route(s->q, search_copy(s, lib, slot));
	search_provider(s);
	if ((v = search_vecindex(s, lib, slot)) != NULL)
		hybrid = search_hybrid(s, v, query, cand, &ncand);
	search_bound_private(s, slot);
	/* the rows the answer reads, in one statement (PostgreSQL): see search_prefetch */
	if ((late = lexindex_places(x)) == 0)
		search_prefetch(s, lib, x, cand, ncand, budget, 0, 0);
	search_demote_dev(s, x, cand, ncand);
	if (s->trace != NULL) {
		s->trace->hybrid = hybrid;
		if (search_trace_add(s->trace, cand, ncand) == -1)
			goto out;
	}
	if (s->inject == INJECT_HOLD && search_hold(s, x, lib, cand, &ncand) == -1)
		goto out;
	if (s->trace != NULL)
		search_trace_left(s->trace, cand, ncand, SEARCH_FATE_HELD);
	/* The question terms the library can answer: those any candidate holds. */
	for (i = 0; i < ncand; i++)
		allterms |= cand[i].terms;
	search_stop(cand, &ncand);
	if (s->trace != NULL)
		search_trace_left(s->trace, cand, ncand, SEARCH_FATE_STOP);
	if (!fast && s->llm.vendor != NULL) {
		search_llm_rerank(s, query, cand, ncand);
		if (s->trace != NULL)
			s->trace->reranked = 1;
	}
	if (late)
		search_prefetch(s, lib, x, cand, ncand, budget, allterms, 1);
	if (ncand > 0 && ((res = calloc(ncand, sizeof(*res))) == NULL ||
	    (ids = calloc(ncand, sizeof(*ids))) == NULL ||
	    (pos = calloc(ncand, sizeof(*pos))) == NULL ||
	    (docs = calloc(ncand, sizeof(*docs))) == NULL ||
	    (scores = calloc(ncand, sizeof(*scores))) == NULL))
		goto out;
	/*
	 * Pack in rank order. A snippet bigger than what is left is cut to fit when it is the
	 * first (or at least SEARCH_CUT_MIN tokens are left, which no budget reaches); else it
	 * is skipped, and a smaller one may still fit (an API description's first places keep
	 * room for the next ones and cut instead: search_room). Past SEARCH_SOFT_MIN sections and
	 * SEARCH_SOFT_SHARE of the budget, only candidates scoring SEARCH_SOFT_RATIO of the best
	 * are added; past SEARCH_COVER_SHARE, once the answer covers the question,
	 * SEARCH_COVER_RATIO. The example of one of the first sections (search_example) follows
	 * it past both.
	 */
	for (i = 0, best = 0; i < ncand; i++)
		if (cand[i].score > best)
			best = cand[i].score;
	for (i = 0; i < ncand && used < budget; i++) {
		int example = forced;

		forced = 0;
		switch (search_pack_rule(lib, &cand[i], example, nres, used, budget, best, have,
		    allterms, &room)) {
		case SEARCH_PACK_STOP:
			if (s->trace != NULL)
				search_trace_mark(s->trace, cand[i].id, SEARCH_FATE_STOP);
			continue;
		case SEARCH_PACK_ROOM:
			if (s->trace != NULL)
				search_trace_mark(s->trace, cand[i].id, SEARCH_FATE_ROOM);
			continue;
		case SEARCH_PACK_TAKE:
			break;
		}
		ids[nres] = cand[i].id;
		if ((ld = search_load(s, cand[i].id, &res[nres], &pos[nres])) != 0) {
			nres++;		/* released below */
			if (ld == -1)
				goto out;
			format_snippet_release(&res[--nres]);	/* gone: skipped */
			if (s->trace != NULL)
				search_trace_mark(s->trace, cand[i].id, SEARCH_FATE_GONE);
			continue;
		}
		if (res[nres].flags != NULL && s->inject != INJECT_MARK) {
			if (s->inject == INJECT_HOLD) {	/* flagged since the filter */
				format_snippet_release(&res[nres]);
				if (s->trace != NULL)
					search_trace_mark(s->trace, cand[i].id,
					    SEARCH_FATE_HELD);
				continue;
			}
			free(res[nres].flags);
			res[nres].flags = NULL;
		}
		format_cut(&res[nres], room);
		if (s->trace != NULL)
			search_trace_mark(s->trace, cand[i].id, res[nres].cut ?
			    SEARCH_FATE_CUT : SEARCH_FATE_ANSWER);
		used += res[nres].tokens;
		docs[nres] = cand[i].doc;
		scores[nres] = cand[i].score;
		have |= cand[i].terms;
		nres++;
		if (!example && nres <= SEARCH_EXAMPLE_OF)
			forced = search_example(s, x, cand, ncand, i);
	}
	/* Then the lines the packed snippets depend on, while the budget allows. */
	for (i = 0; i < nres && used < budget; i++) {
		int added;

		if ((added = search_expand(s, &pos[i], &res[i], ids, nres,
		    budget - used)) == -1)
			goto out;
		used += added;
	}
	if (search_order(res, ids, docs, pos, scores, nres) == -1)
		goto out;
	if (s->trace != NULL && search_trace_finish(s, res, ids, nres, used) == -1)
		goto out;
	*out = res;
	*n = nres;
	res = NULL;
	rc = 0;
out:
	if (res != NULL) {
		while (nres > 0)
			format_snippet_release(&res[--nres]);
		free(res);
	}
	store_query_prefetch_drop(s->q);
	store_query_route(s->q, NULL);
	free(cand);
	free(ids);
	free(pos);
	free(docs);
	free(scores);
	tokenize_terms_free(terms, nterms);
	return rc;
}

/* Case-insensitive substring test. */
static int
search_contains(const char *hay, const char *needle)
{
	return hay != NULL && strcasestr(hay, needle) != NULL;
}

/*
 * How well a library matches a name the user typed: 4 exact repository name, 3 exact
 * "owner/repo", 2 name inside the id or title, 1 some word of it does, 0 no match.
 */
static int
search_name_score(const char *id, const char *title, const char *name)
{
	const char	*repo = strrchr(id, '/');
	char		 word[128];
	const char	*p;
	size_t		 k;
	int		 best = 0;

	repo = repo != NULL ? repo + 1 : id;
	while (*name == '/')
		name++;
	if (strcasecmp(repo, name) == 0)
		return 4;
	if (strcasecmp(id + 1, name) == 0)
		return 3;
	if (search_contains(id, name) || search_contains(title, name))
		return 2;
	for (p = name; *p != '\0'; ) {
		for (k = 0; *p != '\0' && !isspace((unsigned char)*p) &&
		    *p != '/' && k + 1 < sizeof(word); p++)
			word[k++] = *p;
		word[k] = '\0';
		if (k >= 2 && (search_contains(id, word) || search_contains(title, word)))
			best = 1;
		while (*p != '\0' && (isspace((unsigned char)*p) || *p == '/'))
			p++;
	}
	return best;
}

struct search_hit {
	json_object	*o;
	int		 score;
	long		 snippets;
};

static int
search_hit_cmp(const void *a, const void *b)
{
	const struct search_hit *x = a, *y = b;

	if (x->score != y->score)
		return y->score - x->score;
	return (y->snippets > x->snippets) - (y->snippets < x->snippets);
}

/* The libraries found so far (search_libraries) and the name looked for. */
struct search_found {
	struct search_hit *hits;
	size_t		 n, cap;
	const char	*name;
};

static int
search_libraries_row(const struct store_query_libs_row *r, void *arg)
{
	struct search_found *f = arg;
	json_object	*o, *versions;
	int		 score;

	if ((score = search_name_score(r->id, r->title, f->name)) == 0)
		return 0;
	if (f->n == f->cap) {
		struct search_hit *nh;
		size_t ncap = f->cap ? f->cap * 2 : 16;

		if ((nh = reallocarray(f->hits, ncap, sizeof(*nh))) == NULL)
			return -1;
		f->hits = nh;
		f->cap = ncap;
	}
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(r->id));
	json_object_object_add(o, "title", json_object_new_string(r->title));
	json_object_object_add(o, "description", json_object_new_string(r->description));
	json_object_object_add(o, "branch", json_object_new_string(r->branch));
	json_object_object_add(o, "lastUpdateDate", json_object_new_string(r->updated_at));
	json_object_object_add(o, "state", json_object_new_string(r->state));
	json_object_object_add(o, "totalTokens", json_object_new_int64(r->tokens));
	json_object_object_add(o, "totalSnippets", json_object_new_int64(r->snippets));
	json_object_object_add(o, "stars", json_object_new_int(-1));
	json_object_object_add(o, "trustScore", json_object_new_int(-1));
	json_object_object_add(o, "benchmarkScore", json_object_new_int(-1));
	versions = json_tokener_parse(r->versions);
	if (!json_object_is_type(versions, json_type_array)) {
		json_object_put(versions);
		versions = json_object_new_array();
	}
	json_object_object_add(o, "versions", versions);
	json_object_object_add(o, "source", json_object_new_string("Local (Private)"));
	json_object_object_add(o, "origin", json_object_new_string("local"));
	json_object_object_add(o, "type", json_object_new_string(r->type));
	f->hits[f->n].o = o;
	f->hits[f->n].score = score;
	f->hits[f->n].snippets = r->snippets;
	f->n++;
	return 0;
}

int
search_libraries(struct search *s, const char *name, const char *query, struct buf *out)
{
	struct search_found f;
	json_object	*root = NULL, *arr;
	size_t		 i;
	int		 rc = -1;

	memset(&f, 0, sizeof(f));
	f.name = name;
	if (store_query_libraries(s->q, search_libraries_row, &f) == -1)
		goto out;
	(void)query;	/* ranking by the question comes with semantic search */
	if (f.n > 0)
		qsort(f.hits, f.n, sizeof(*f.hits), search_hit_cmp);
	root = json_object_new_object();
	arr = json_object_new_array();
	json_object_object_add(root, "results", arr);
	for (i = 0; i < f.n; i++) {
		if (i < SEARCH_MAX_RESULTS)
			json_object_array_add(arr, f.hits[i].o);
		else
			json_object_put(f.hits[i].o);
		f.hits[i].o = NULL;
	}
	/* Then the upstream's, a local library with the same id winning (upstream.h). */
	if (upstream_libs(s->db, util_data_dir(), name, query, arr) == -1)
		goto out;
	json_object_object_add(root, "searchFilterApplied", json_object_new_boolean(0));
	if (buf_adds(out, json_object_to_json_string_ext(root,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) == -1)
		goto out;
	rc = 0;
out:
	for (i = 0; i < f.n; i++)
		json_object_put(f.hits[i].o);
	free(f.hits);
	json_object_put(root);
	return rc;
}

void
search_set_detail(struct search *s, int admin)
{
	s->detail = admin != 0;
}

/*
 * The context answer shared by GET /api/v2/context and the MCP query-docs tool (see
 * search.h). topic, when not NULL nor empty, narrows query ("query topic").
 */
int
search_answer(struct search *s, const char *libid, const char *query, const char *topic,
    long budget, int fast, int json, struct buf *out)
{
	/* Room for an id of SEARCH_TEXT_MAX characters of 4 bytes each. */
	char		 id[4 * SEARCH_TEXT_MAX + 1] = "", base[sizeof(id)], tokens[24];
	struct search_lib lib;
	enum search_lib_status st;
	struct libid	 key;
	int		 versioned, parsed = 0;
	struct snippet	*sn = NULL;
	struct buf	 q;
	size_t		 n = 0, i;
	int		 status = 500, begun = 0;

	buf_init(&q);
	buf_reset(out);
	if (budget < FORMAT_MIN_TOKENS)
		budget = FORMAT_MIN_TOKENS;
	if (budget > FORMAT_MAX_TOKENS)
		budget = FORMAT_MAX_TOKENS;
	/* The one normal form of the id, before any lookup, policy or upstream call. */
	if ((status = search_parse_id(libid, id, base, sizeof(id), &key, &versioned,
	    out)) != 0)
		goto out;
	parsed = 1;
	/*
	 * One read transaction: every statement sees the same index, even mid re-index
	 * (the caller's, when it has one open). Not on a listening PostgreSQL connection
	 * (a query worker of a node): its BEGIN and ROLLBACK would be two round trips of
	 * their own, and what it reads between requests is kept (db_listen); a snippet
	 * gone since the ranking is skipped as from a stale index.
	 */
	if (!db_in_transaction(s->db) && !db_listening(s->db)) {
		if (db_begin_read(s->db) == -1)
			goto fail;
		begun = 1;
	}
	if ((st = search_library_any_case(s, id, sizeof(id), key.baselen, &lib)) ==
	    SEARCH_LIB_NOT_FOUND && versioned && search_library_any_case(s, base,
	    sizeof(base), key.baselen, &lib) != SEARCH_LIB_NOT_FOUND) {
		status = 404;
		if (search_version_missing(s, base, id, out) == -1)
			goto fail;
		goto out;
	}
	switch (st) {
	case SEARCH_LIB_NOT_FOUND:
		/* Not here: the upstream's, when one is set and the policies allow it. */
		snprintf(tokens, sizeof(tokens), "%ld", budget);
		if ((status = upstream_context(s->db, util_data_dir(), key.key, query,
		    tokens, json, out)) != 404 || out->len > 0)
			goto out;
		status = 404;
		if (buf_printf(out, "library %s does not exist: add it with POST "
		    "/api/parse or find its id with /api/v2/libs/search", id) == -1)
			status = -1;
		goto out;
	case SEARCH_LIB_PENDING:
		status = 202;
		if (buf_printf(out, "library %s is being indexed for the first time; "
		    "try again in a minute", id) == -1)
			status = -1;
		goto out;
	case SEARCH_LIB_FAILED:
		/* it exists (not 404) and cannot be served until an indexing succeeds */
		status = 422;
		if (!s->detail)
			format_public_error(lib.error);
		if (buf_printf(out, "indexing %s failed: %s; it has no index to answer from",
		    id, *lib.error != '\0' ? lib.error : "no reason was recorded") == -1)
			status = -1;
		goto out;
	case SEARCH_LIB_READY:
		break;
	}
	s->inject = search_inject_mode(s);
	if (topic != NULL && *topic != '\0' && topic != query) {
		if (buf_printf(&q, "%s %s", query, topic) == -1)
			goto fail;
		query = q.p;
	}
	if (search_context(s, &lib, query, budget, fast, &sn, &n) == -1)
		goto fail;
	status = 200;
	if (json) {
		if (format_json(out, sn, n) == -1)
			goto fail;
	} else if (n == 0) {
		if (buf_printf(out, "No documentation in %s matched the query. Try "
		    "other words, or a shorter query.", id) == -1)
			goto fail;
	} else if (format_text(out, sn, n) == -1)
		goto fail;
	goto out;
fail:
	buf_reset(out);
	status = 500;
	if (buf_printf(out, "the context for %s could not be built; the responder log "
	    "has the details", id) == -1)
		status = -1;
out:
	if (begun)
		db_rollback(s->db);
	if (parsed)
		libid_release(&key);
	for (i = 0; i < n; i++)
		format_snippet_release(&sn[i]);
	free(sn);
	buf_release(&q);
	return status;
}

int
search_explain(struct search *s, const char *libid, const char *query, long budget,
    int fast, struct search_trace *t, struct buf *out)
{
	char		 id[4 * SEARCH_TEXT_MAX + 1], base[sizeof(id)];
	struct search_lib lib;
	struct libid	 key;
	int		 status, versioned, local;

	buf_reset(out);
	if ((status = search_parse_id(libid, id, base, sizeof(id), &key, &versioned,
	    out)) != 0)
		return status;
	local = search_library_any_case(s, id, sizeof(id), key.baselen, &lib) !=
	    SEARCH_LIB_NOT_FOUND || search_library_any_case(s, base, sizeof(base),
	    key.baselen, &lib) != SEARCH_LIB_NOT_FOUND;
	libid_release(&key);
	if (!local)
		return buf_printf(out, "library %s does not exist here (only the libraries "
		    "this instance indexes can be explained)", id) == -1 ? -1 : 404;
	s->trace = t;
	status = search_answer(s, libid, query, NULL, budget, fast, 0, out);
	s->trace = NULL;
	return status;
}
