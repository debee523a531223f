/* upstream.c: the Context7-compatible upstream of public libraries (see upstream.h). */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "base/buf.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/tokenize.h"
#include "base/util.h"
#include "base/validate.h"
#include "net/fetch.h"
#include "search/format.h"
#include "search/inject.h"
#include "search/search.h"
#include "search/upstream.h"
#include "sources/libid.h"
#include "sources/policy.h"
#include "store/netpolicy.h"
#include "store/settings.h"

#define UPSTREAM_CACHE_DIR	"upstream-cache"
#define UPSTREAM_LOG_EVERY	60	/* seconds between two logged upstream failures */

/* The settings of one call; upstream_release frees them. */
struct upstream {
	char	*url;		/* base, without a trailing slash */
	char	*key;		/* NULL: none */
	long	 timeout_ms;
	long	 cache_ttl;	/* seconds (0: no cache) */
	long	 cache_max;	/* bytes */
	char	*cache_dir;	/* DATADIR/upstream-cache */
	int	 down;		/* a request of this call found it unreachable or 5xx */
	int	 down_timeout;	/* ... by its timeout */
	char	 down_err[400];	/* ... and why */
	char	 auth[600];
};

static void
upstream_release(struct upstream *u)
{
	free(u->url);
	if (u->key != NULL)
		explicit_bzero(u->key, strlen(u->key));
	free(u->key);
	free(u->cache_dir);
	explicit_bzero(u->auth, sizeof(u->auth));
}

/* Loads the settings and the address policy: 1 set up, 0 no upstream, -1 error. */
static int
upstream_load(struct db *db, const char *datadir, struct upstream *u)
{
	size_t	 n;

	memset(u, 0, sizeof(*u));
	u->url = settings_get(db, datadir, "upstream.url");
	if (u->url == NULL || *u->url == '\0')
		return 0;
	n = strlen(u->url);
	while (n > 0 && u->url[n - 1] == '/')
		u->url[--n] = '\0';
	u->key = settings_get(db, datadir, "upstream.api_key");
	if (u->key != NULL && (*u->key == '\0' || strlen(u->key) > 512 ||
	    strpbrk(u->key, "\r\n") != NULL)) {
		free(u->key);
		u->key = NULL;
	}
	if (u->key != NULL)
		snprintf(u->auth, sizeof(u->auth), "Authorization: Bearer %s", u->key);
	u->timeout_ms = settings_get_long(db, datadir, "upstream.timeout_s", 10) * 1000;
	u->cache_ttl = settings_get_long(db, datadir, "upstream.cache_ttl_s", 3600);
	u->cache_max = settings_get_long(db, datadir, "upstream.cache_mb", 64) * 1024 * 1024;
	if ((u->cache_dir = util_path_join(datadir, UPSTREAM_CACHE_DIR)) == NULL)
		return -1;
	netpolicy_load(db, datadir);
	return 1;
}

int
upstream_enabled(struct db *db, const char *datadir)
{
	struct upstream	 u;
	int		 rc;

	rc = upstream_load(db, datadir, &u);
	upstream_release(&u);
	return rc == 1;
}

/* Logs a failure at most once every UPSTREAM_LOG_EVERY seconds of this process. */
static void
upstream_log_failure(const char *fn, const char *what)
{
	static time_t	 last;
	time_t		 now = time(NULL);

	if (last != 0 && now - last < UPSTREAM_LOG_EVERY)
		return;
	last = now;
	log_warn("%s: %s (further upstream failures are not logged for %d s)", fn, what,
	    UPSTREAM_LOG_EVERY);
}

/*
 * GET base + path (path holds its query, already escaped) into req: 0 when an answer
 * came (any status; its body valid UTF-8), -1 with one line in err (no key, no query).
 */
static int
upstream_get(struct upstream *u, const char *path, struct fetch_req *req, char *err,
    size_t errsz)
{
	struct fetch	 f;
	struct buf	 url;
	char		 host[256];
	int		 rc = -1;

	buf_init(&url);
	fetch_init(&f);
	fetch_req_init(req);
	fetch_host(u->url, host, sizeof(host));
	if (buf_printf(&url, "%s%s", u->url, path) == -1) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	req->method = "GET";
	req->url = url.p;
	req->headers[0] = "Accept: application/json, text/plain";
	if (u->key != NULL) {
		req->headers[1] = u->auth;
		req->secret_headers = 0x2;
		fetch_secret(&f, u->key);
	}
	req->timeout_ms = u->timeout_ms;
	req->connect_ms = u->timeout_ms;
	req->max_size = UPSTREAM_MAX_SIZE;
	req->tries = 1;
	req->redirects = 0;
	if (fetch_run(&f, req, 1) == -1) {
		snprintf(err, errsz, "upstream %s: %s", host, req->error);
		goto out;
	}
	if (req->answer.len > 0 && validate_utf8_chars(req->answer.p, req->answer.len) < 0) {
		snprintf(err, errsz, "upstream %s answered HTTP %ld with text that is not "
		    "valid UTF-8", host, req->status);
		goto out;
	}
	rc = 0;
out:
	req->url = NULL;
	buf_release(&url);
	fetch_release(&f);
	return rc;
}

/* ------------------------------------------------------------------ untrusted text */

/*
 * The upstream's text is held to the rules of local answers (upstream.h): invisible
 * characters stripped, content.injection applied, the caller's budget kept, and no line
 * break in a field that the answers show on one line.
 */

#define UPSTREAM_FIELD_MAX	1000	/* bytes of one field of an upstream library */
/* Only the first block is cut to fit, as search.c packs local answers. */
#define UPSTREAM_SEPARATOR	"\n\n--------------------------------\n\n"

/*
 * Turns every line break and control character of the NUL-terminated UTF-8 string s
 * (C0, DEL, C1, U+2028, U+2029) into a space, in place; the new length.
 */
static size_t
upstream_oneline(char *s)
{
	size_t	 r = 0, w = 0;
	unsigned char c;

	while ((c = (unsigned char)s[r]) != '\0') {
		if (c < 0x20 || c == 0x7f) {
			s[w++] = ' ';
			r++;
		} else if (c == 0xc2 && (unsigned char)s[r + 1] >= 0x80 &&
		    (unsigned char)s[r + 1] <= 0x9f) {
			s[w++] = ' ';
			r += 2;
		} else if (c == 0xe2 && (unsigned char)s[r + 1] == 0x80 &&
		    ((unsigned char)s[r + 2] == 0xa8 || (unsigned char)s[r + 2] == 0xa9)) {
			s[w++] = ' ';
			r += 3;
		} else
			s[w++] = s[r++];
	}
	s[w] = '\0';
	return w;
}

/* The length of s's first len bytes cut back to a UTF-8 character boundary. */
static size_t
upstream_utf8_cut(const char *s, size_t len)
{
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len;
}

/*
 * Where to cut text s (length len) to at most max bytes: at the last blank line, else
 * line end, else space of the second half of the room, else a character boundary.
 */
static size_t
upstream_cut_at(const char *s, size_t len, size_t max)
{
	size_t	 i;

	if (len <= max)
		return len;
	for (i = max; i > max / 2; i--)
		if (s[i - 1] == '\n' && s[i] == '\n')
			return i - 1;
	for (i = max; i > max / 2; i--)
		if (s[i] == '\n' || s[i] == ' ')
			return i;
	return upstream_utf8_cut(s, max);
}

/* Sets string o to s, its invisible characters stripped and, when line, on one line. */
static int
upstream_clean_string(json_object *o, size_t max, int line)
{
	char	*s;
	size_t	 n;
	int	 rc;

	if ((s = strdup(json_object_get_string(o))) == NULL)
		return -1;
	inject_strip(s);
	n = line ? upstream_oneline(s) : strlen(s);
	if (n > max)
		s[upstream_utf8_cut(s, max)] = '\0';
	rc = json_object_set_string(o, s) == 1 ? 0 : -1;
	free(s);
	return rc;
}

/* upstream_clean_string on every string of o; -1 on no memory. */
static int
upstream_clean_tree(json_object *o, size_t max, int line)
{
	size_t	 i;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return upstream_clean_string(o, max, line);
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++)
			if (upstream_clean_tree(json_object_array_get_idx(o, i), max,
			    line) == -1)
				return -1;
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			if (upstream_clean_tree(v, max, line) == -1)
				return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* The strings of o, one a line, into b (for the injection rules); -1 on no memory. */
static int
upstream_strings(json_object *o, struct buf *b)
{
	size_t	 i;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return buf_adds(b, json_object_get_string(o)) == -1 ||
		    buf_addc(b, '\n') == -1 ? -1 : 0;
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++)
			if (upstream_strings(json_object_array_get_idx(o, i), b) == -1)
				return -1;
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			if (upstream_strings(v, b) == -1)
				return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* The rules of v joined by ", " into out. */
static void
upstream_rules(const struct inject_verdict *v, char *out, size_t outsz)
{
	size_t	 i, len;

	*out = '\0';
	for (i = 0; i < v->n; i++) {
		len = strlen(out);
		snprintf(out + len, outsz - len, "%s%s", i > 0 ? ", " : "", v->hit[i].rule);
	}
}

/* Puts the content.injection=mark line for v before the string member key of o. */
static int
upstream_mark(json_object *o, const char *key, const struct inject_verdict *v)
{
	json_object	*s;
	struct buf	 b;
	char		 rules[256];
	int		 rc;

	if (!json_object_object_get_ex(o, key, &s) || !json_object_is_type(s, json_type_string))
		return 1;
	upstream_rules(v, rules, sizeof(rules));
	buf_init(&b);
	rc = buf_printf(&b, FORMAT_MARK_FMT, rules) == -1 ||
	    buf_printf(&b, "%s%s", *json_object_get_string(s) != '\0' ? " " : "",
	    json_object_get_string(s)) == -1 || json_object_set_string(s, b.p) != 1 ? -1 : 0;
	buf_release(&b);
	return rc;
}

/*
 * An upstream library of a search (a copy): its strings cleaned, one a line. 1 to keep
 * it, 0 when content.injection=hold leaves it out (its title or description is addressed
 * to AI agents; mark: the description says so), -1 on no memory.
 */
static int
upstream_clean_library(json_object *r, enum inject_mode mode)
{
	struct inject_verdict v;
	json_object	*f;
	const char	*keys[] = { "title", "description" };
	size_t		 i;

	if (upstream_clean_tree(r, UPSTREAM_FIELD_MAX, 1) == -1)
		return -1;
	if (mode == INJECT_OFF)
		return 1;
	memset(&v, 0, sizeof(v));
	for (i = 0; i < 2; i++)
		if (json_object_object_get_ex(r, keys[i], &f) &&
		    json_object_is_type(f, json_type_string))
			inject_scan(json_object_get_string(f), 1, &v);
	if (v.n == 0)
		return 1;
	if (mode == INJECT_HOLD)
		return 0;
	if (!json_object_object_get_ex(r, "description", &f))
		json_object_object_add(r, "description", json_object_new_string(""));
	return upstream_mark(r, "description", &v) == -1 ? -1 : 1;
}

/* 1 when text (len bytes) leaves a ``` code fence open. */
static int
upstream_fence_open(const char *s, size_t len)
{
	size_t	 i;
	int	 open = 0;

	for (i = 0; i + 3 <= len; i++)
		if ((i == 0 || s[i - 1] == '\n') && strncmp(s + i, "```", 3) == 0)
			open = !open;
	return open;
}

/*
 * The tokens of a text block (len bytes) as the budget of local answers counts them:
 * its heading, prose and code, not the markup around them (the "### " of the heading,
 * the "Source:" and "Under:" lines, the code fences).
 */
static long
upstream_block_tokens(const char *b, size_t len)
{
	const char	*p = b, *e = b + len, *nl;
	size_t		 n = 0, line;

	while (p < e) {
		nl = memchr(p, '\n', (size_t)(e - p));
		line = nl != NULL ? (size_t)(nl - p) + 1 : (size_t)(e - p);
		if (strncmp(p, "### ", line < 4 ? line : 4) == 0 && line >= 4)
			n += line - 4;
		else if (!(line >= 8 && strncmp(p, "Source: ", 8) == 0) &&
		    !(line >= 7 && strncmp(p, "Under: ", 7) == 0) &&
		    !(line >= 3 && strncmp(p, "```", 3) == 0))
			n += line;
		p += line;
	}
	return (long)tokenize_estimate(NULL, n);
}

/*
 * Adds block b (len bytes) to out under what is left of the budget (*used of budget
 * tokens, counted as upstream_block_tokens does), after the separator when out is not
 * empty and after the mark line of v (NULL: none):
 * whole when it fits; cut (FORMAT_CUT_NOTE after it) when it is the first one, which
 * fills the budget; else not at all (a later, smaller block may still fit).
 * 1 when added, 0 when not, -1 on no memory.
 */
static int
upstream_add_block(struct buf *out, const char *b, size_t len, const struct inject_verdict *v,
    long budget, long *used)
{
	char	 mark[400] = "";
	long	 t, left = budget - *used;
	size_t	 keep;

	if (v != NULL) {
		char rules[256];

		upstream_rules(v, rules, sizeof(rules));
		snprintf(mark, sizeof(mark), FORMAT_MARK_FMT "\n", rules);
	}
	t = upstream_block_tokens(b, len);
	if (t > left && out->len > 0)
		return 0;
	if ((out->len > 0 && buf_adds(out, UPSTREAM_SEPARATOR) == -1) ||
	    buf_adds(out, mark) == -1)
		return -1;
	if (t <= left) {
		*used += t;
		return buf_add(out, b, len) == -1 ? -1 : 1;
	}
	left -= (long)tokenize_estimate(NULL, sizeof(FORMAT_CUT_NOTE));
	keep = upstream_cut_at(b, len, left > 0 ? (size_t)left * 4 : 0);
	while (keep > 0 && strchr(" \t\r\n", b[keep - 1]) != NULL)
		keep--;
	if (buf_add(out, b, keep) == -1 ||
	    (upstream_fence_open(b, keep) && buf_adds(out, "\n```") == -1) ||
	    buf_adds(out, "\n\n" FORMAT_CUT_NOTE) == -1)
		return -1;
	*used = budget;
	return 1;
}

/*
 * A text answer of the upstream in out, held to the local rules: its blocks (joined by
 * the separator of local answers) left out or marked as content.injection says, then
 * packed in order into the budget (a block that does not fit is cut or skipped, as
 * search.c does). 0, -1 on no memory.
 */
static int
upstream_shape_text(enum inject_mode mode, const char *libid, long budget, struct buf *out)
{
	struct inject_verdict v;
	struct buf	 res;
	char		*text = NULL, *p, *e, save;
	long		 used = 0;
	int		 rc = -1, added;

	buf_init(&res);
	if ((text = strndup(out->p != NULL ? out->p : "", out->len)) == NULL)
		goto out;
	inject_strip(text);
	for (p = text; p != NULL && used < budget; p = e != NULL ?
	    e + sizeof(UPSTREAM_SEPARATOR) - 1 : NULL) {
		e = strstr(p, UPSTREAM_SEPARATOR);
		save = e != NULL ? *e : '\0';
		if (e != NULL)
			*e = '\0';
		memset(&v, 0, sizeof(v));
		if (mode != INJECT_OFF)
			inject_scan(p, 1, &v);
		added = v.n > 0 && mode == INJECT_HOLD ? 0 : upstream_add_block(&res, p,
		    strlen(p), v.n > 0 ? &v : NULL, budget, &used);
		if (e != NULL)
			*e = save;
		if (added == -1)
			goto out;
	}
	if (res.len == 0 && buf_printf(&res, "No documentation in %s matched the query. "
	    "Try other words, or a shorter query.", libid) == -1)
		goto out;
	buf_reset(out);
	rc = buf_add(out, res.p, res.len);
out:
	free(text);
	buf_release(&res);
	return rc;
}

/*
 * Brings the strings of o, in document order, into *left bytes: a string that does not
 * fit is cut (FORMAT_CUT_NOTE after it), and once nothing is left, the further elements
 * of every array are dropped. -1 on no memory.
 */
static int
upstream_json_cut(json_object *o, size_t *left)
{
	const char	*s;
	size_t		 i, n, keep;
	struct buf	 b;
	int		 rc;

	switch (json_object_get_type(o)) {
	case json_type_string:
		s = json_object_get_string(o);
		if ((n = strlen(s)) <= *left) {
			*left -= n;
			return 0;
		}
		keep = upstream_cut_at(s, n, *left);
		*left = 0;
		buf_init(&b);
		rc = buf_add(&b, s, keep) == -1 ||
		    buf_adds(&b, keep > 0 ? "\n\n" FORMAT_CUT_NOTE : "") == -1 ||
		    json_object_set_string(o, b.p != NULL ? b.p : "") != 1 ? -1 : 0;
		buf_release(&b);
		return rc;
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++) {
			if (*left == 0) {
				json_object_array_del_idx(o, i,
				    json_object_array_length(o) - i);
				break;
			}
			if (upstream_json_cut(json_object_array_get_idx(o, i), left) == -1)
				return -1;
		}
		return 0;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			if (upstream_json_cut(v, left) == -1)
				return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
}

/* content.injection on the elements of array a (snippets): left out or marked. */
static int
upstream_json_inject(json_object *a, enum inject_mode mode)
{
	static const char *const keys[] = { "codeDescription", "content", "description" };
	struct inject_verdict v;
	json_object	*e;
	struct buf	 b;
	size_t		 i, k;
	int		 rc = 0, m;

	buf_init(&b);
	for (i = json_object_array_length(a); i > 0 && rc == 0; i--) {
		e = json_object_array_get_idx(a, i - 1);
		buf_reset(&b);
		if (upstream_strings(e, &b) == -1) {
			rc = -1;
			break;
		}
		memset(&v, 0, sizeof(v));
		inject_scan(b.p != NULL ? b.p : "", 1, &v);
		if (v.n == 0)
			continue;
		if (mode == INJECT_HOLD || !json_object_is_type(e, json_type_object)) {
			json_object_array_del_idx(a, i - 1, 1);
			continue;
		}
		for (k = 0, m = 1; k < 3 && m == 1; k++)
			m = upstream_mark(e, keys[k], &v);
		if (m == 1)	/* nowhere to say it: left out */
			json_object_array_del_idx(a, i - 1, 1);
		else if (m == -1)
			rc = -1;
	}
	buf_release(&b);
	return rc;
}

/* A JSON answer of the upstream in out, held to the local rules as the text one is. */
static int
upstream_shape_json(enum inject_mode mode, long budget, struct buf *out)
{
	json_object	*root;
	const char	*s;
	size_t		 left = (size_t)budget * 4, len = 0;
	int		 rc = -1;

	if ((root = json_tokener_parse(out->p != NULL ? out->p : "")) == NULL)
		return -1;
	if (upstream_clean_tree(root, (size_t)-1, 0) == -1)
		goto out;
	if (mode != INJECT_OFF) {
		if (json_object_is_type(root, json_type_array) &&
		    upstream_json_inject(root, mode) == -1)
			goto out;
		if (json_object_is_type(root, json_type_object)) {
			json_object_object_foreach(root, k, v) {
				(void)k;
				if (json_object_is_type(v, json_type_array) &&
				    upstream_json_inject(v, mode) == -1)
					goto out;
			}
		}
	}
	if (upstream_json_cut(root, &left) == -1)
		goto out;
	s = json_object_to_json_string_length(root, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	buf_reset(out);
	rc = s == NULL ? -1 : buf_add(out, s, len);
out:
	json_object_put(root);
	return rc;
}

/*
 * The upstream's 200 answer in out, for libid under the budget tokens (NULL: the default),
 * held to the rules of local answers. 0, -1 on no memory.
 */
static int
upstream_shape(struct db *db, const char *libid, const char *tokens, int json,
    struct buf *out)
{
	enum inject_mode mode = inject_mode_get(db);
	long		 budget = tokens != NULL ? format_budget(tokens) : FORMAT_DEFAULT_TOKENS;

	return json ? upstream_shape_json(mode, budget, out) :
	    upstream_shape_text(mode, libid, budget, out);
}

/*
 * The error text of an upstream's answer: its JSON "error" or "message" (on one line;
 * left out when addressed to AI agents and content.injection is not off), else a default.
 */
static void
upstream_error_text(struct db *db, const struct fetch_req *req, char *out,
    size_t outsz)
{
	struct inject_verdict verdict;
	json_object	*root, *v;
	const char	*msg = NULL;

	root = req->answer.len > 0 ? json_tokener_parse(req->answer.p) : NULL;
	if (root != NULL && (json_object_object_get_ex(root, "error", &v) ||
	    json_object_object_get_ex(root, "message", &v)) &&
	    json_object_is_type(v, json_type_string))
		msg = json_object_get_string(v);
	snprintf(out, outsz, "upstream: %s", msg != NULL ? msg : "the upstream refused "
	    "the request");
	util_utf8_scrub(out);
	util_utf8_trim(out);
	inject_strip(out);
	upstream_oneline(out);
	memset(&verdict, 0, sizeof(verdict));
	if (inject_mode_get(db) != INJECT_OFF)
		inject_scan(out, 1, &verdict);
	if (verdict.n > 0)
		snprintf(out, outsz, "upstream: the upstream refused the request (HTTP %ld); "
		    "its message was left out: it is addressed to AI agents", req->status);
	json_object_put(root);
}

/* Does the answer parse as JSON? */
static int
upstream_is_json(const struct fetch_req *req)
{
	json_object	*o;

	if (req->answer.len == 0 || (o = json_tokener_parse(req->answer.p)) == NULL)
		return 0;
	json_object_put(o);
	return 1;
}

/* Is id among the "id"s of results? */
static int
upstream_has_id(json_object *results, const char *id)
{
	json_object	*v;
	size_t		 i;

	for (i = 0; i < json_object_array_length(results); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(results, i), "id",
		    &v) && strcasecmp(json_object_get_string(v), id) == 0)
			return 1;
	return 0;
}

/*
 * The source type (the "type" a ctxd upstream reports; NULL: unknown, "other" to the
 * policies) and trust score (-1: not reported) of one upstream search result.
 */
static void
upstream_kind(json_object *r, const char **type, double *trust)
{
	json_object	*v;

	*type = json_object_object_get_ex(r, "type", &v) &&
	    json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	*trust = json_object_object_get_ex(r, "trustScore", &v) &&
	    (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double)) ? json_object_get_double(v) : -1;
}

/* Is libid the library id, or one of its versions (id/VERSION, id@VERSION), any case? */
static int
upstream_same_library(const char *id, const char *libid)
{
	size_t	 n = strlen(id);

	return strncasecmp(id, libid, n) == 0 && (libid[n] == '\0' || libid[n] == '/' ||
	    libid[n] == '@');
}

/*
 * The policies' decision about libid (the normal form, libid.h): the lists first, then,
 * when they allow it, with the source type and trust score that the
 * upstream's library search reports for it (one search by its last path segment; not
 * found or not reachable: type other, trust unknown). 1, 0 with why, or -1.
 */
static int
upstream_decide(struct db *db, const char *datadir, struct upstream *u,
    const char *libid, char *why, size_t whysz)
{
	struct fetch_req req;
	struct buf	 path;
	json_object	*answer = NULL, *arr, *r, *v;
	const char	*type = NULL, *name;
	char		*en = NULL, err[400], repo[256];
	double		 trust = -1;
	size_t		 i;
	int		 rc = -1;

	buf_init(&path);
	fetch_req_init(&req);
	/* The license and the lists first: a denied id is never sent to the upstream. */
	if ((rc = policy_check_id(db, datadir, libid, why, whysz)) != 1)
		goto out;
	rc = -1;
	/* The repository segment of /owner/repo[/version] names it in a search. */
	name = strchr(libid + 1, '/');
	snprintf(repo, sizeof(repo), "%.*s", (int)strcspn(name != NULL ? name + 1 : libid,
	    "/"), name != NULL ? name + 1 : libid);
	if ((en = fetch_escape(repo)) == NULL ||
	    buf_printf(&path, "/v2/libs/search?libraryName=%s", en) == -1)
		goto out;
	if (upstream_get(u, path.p, &req, err, sizeof(err)) == -1 || req.status >= 500) {
		/* Down: upstream_context serves from its cache without asking again. */
		u->down = 1;
		u->down_timeout = req.result == FETCH_ETIMEOUT;
		if (req.result == FETCH_OK)
			snprintf(err, sizeof(err), "HTTP %ld", req.status);
		snprintf(u->down_err, sizeof(u->down_err), "%s", err);
	} else if (req.status == 200 &&
	    (answer = json_tokener_parse(req.answer.p)) != NULL &&
	    json_object_object_get_ex(answer, "results", &arr) &&
	    json_object_is_type(arr, json_type_array))
		for (i = 0; i < json_object_array_length(arr); i++) {
			r = json_object_array_get_idx(arr, i);
			if (json_object_object_get_ex(r, "id", &v) &&
			    upstream_same_library(json_object_get_string(v), libid)) {
				upstream_kind(r, &type, &trust);
				break;
			}
		}
	rc = policy_check(db, datadir, libid, type, trust, why, whysz);
out:
	json_object_put(answer);
	free(en);
	buf_release(&path);
	fetch_req_release(&req);
	return rc;
}

/* Appends the allowed, new libraries of an upstream search answer to results. */
static int
upstream_merge(struct db *db, const char *datadir, json_object *answer,
    json_object *results)
{
	json_object	*arr, *r, *v, *copy;
	const char	*id, *type;
	char		 why[256];
	double		 trust;
	size_t		 i, n, kept = 0;
	enum inject_mode mode;

	if (!json_object_object_get_ex(answer, "results", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return 0;
	mode = inject_mode_get(db);
	n = json_object_array_length(arr);
	for (i = 0; i < n && kept < UPSTREAM_MAX_RESULTS; i++) {
		r = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(r, json_type_object) ||
		    !json_object_object_get_ex(r, "id", &v) ||
		    !json_object_is_type(v, json_type_string))
			continue;
		id = json_object_get_string(v);
		if (libid_check(id, why, sizeof(why)) == -1 ||
		    upstream_has_id(results, id))
			continue;
		upstream_kind(r, &type, &trust);
		if (policy_check(db, datadir, id, type, trust, why, sizeof(why)) != 1)
			continue;
		copy = NULL;
		if (json_object_deep_copy(r, &copy, NULL) != 0)
			return -1;
		switch (upstream_clean_library(copy, mode)) {
		case -1:
			json_object_put(copy);
			return -1;
		case 0:
			json_object_put(copy);
			continue;
		}
		json_object_object_add(copy, "origin", json_object_new_string("upstream"));
		/* A chained ctxd calls its own libraries local: not so here. */
		if (json_object_object_get_ex(copy, "source", &v) &&
		    strcmp(json_object_get_string(v), "Local (Private)") == 0)
			json_object_object_add(copy, "source",
			    json_object_new_string("Upstream"));
		json_object_array_add(results, copy);
		kept++;
	}
	return 0;
}

int
upstream_libs(struct db *db, const char *datadir, const char *name, const char *query,
    json_object *results)
{
	struct upstream	 u;
	struct fetch_req req;
	struct buf	 path;
	json_object	*answer = NULL;
	char		*en = NULL, *eq = NULL, err[400];
	int		 rc = 0;

	buf_init(&path);
	fetch_req_init(&req);
	if (upstream_load(db, datadir, &u) != 1)
		goto out;
	rc = -1;
	if ((en = fetch_escape(name)) == NULL ||
	    (query != NULL && (eq = fetch_escape(query)) == NULL) ||
	    buf_printf(&path, "/v2/libs/search?libraryName=%s%s%s", en,
	    eq != NULL ? "&query=" : "", eq != NULL ? eq : "") == -1)
		goto out;
	rc = 0;
	if (upstream_get(&u, path.p, &req, err, sizeof(err)) == -1) {
		upstream_log_failure(__func__, err);
		goto out;
	}
	if (req.status != 200 || (answer = json_tokener_parse(req.answer.p)) == NULL) {
		snprintf(err, sizeof(err), "upstream library search: HTTP %ld%s", req.status,
		    req.status == 200 ? ", not JSON" : "");
		upstream_log_failure(__func__, err);
		goto out;
	}
	rc = upstream_merge(db, datadir, answer, results);
out:
	json_object_put(answer);
	free(en);
	free(eq);
	buf_release(&path);
	fetch_req_release(&req);
	upstream_release(&u);
	return rc;
}

/* ------------------------------------------------------------------ the answer cache */

/*
 * The cache of context answers: one file per request, DATADIR/upstream-cache/SHA256 of the
 * request's path (0600, written whole then renamed), holding the upstream's 200 answer.
 * Served without asking the upstream while younger than upstream.cache_ttl_s, and at any
 * age when the upstream cannot be reached. The files together stay under
 * upstream.cache_mb: the oldest go first.
 */

/* The file of path (malloc'd), or NULL. */
static char *
upstream_cache_file(const struct upstream *u, const char *path)
{
	char	 hex[65];

	crypto_sha256_hex(path, strlen(path), hex);
	return util_path_join(u->cache_dir, hex);
}

/*
 * The cached answer of path into out when there is one younger than maxage seconds
 * (< 0: any age): 1, else 0.
 */
static int
upstream_cache_get(const struct upstream *u, const char *path, long maxage,
    struct buf *out)
{
	struct stat	 st;
	char		*file, *data = NULL;
	size_t		 len;
	int		 rc = 0;

	if (u->cache_ttl <= 0 || (file = upstream_cache_file(u, path)) == NULL)
		return 0;
	if (stat(file, &st) == -1 || (maxage >= 0 && time(NULL) - st.st_mtime >= maxage))
		goto out;
	if (util_read_file(file, UPSTREAM_MAX_SIZE, &data, &len) == -1)
		goto out;
	buf_reset(out);
	rc = buf_add(out, data, len) == 0;
out:
	free(data);
	free(file);
	return rc;
}

/* Removes the oldest files of the cache until need more bytes fit under its cap. */
static void
upstream_cache_trim(const struct upstream *u, size_t need)
{
	DIR		*d;
	struct dirent	*e;
	struct stat	 st;
	char		*f, *oldest = NULL;
	time_t		 when;
	long long	 total;
	int		 round;

	for (round = 0; round < 1000; round++) {
		if ((d = opendir(u->cache_dir)) == NULL)
			return;
		total = 0;
		when = 0;
		while ((e = readdir(d)) != NULL) {
			if (strlen(e->d_name) != 64 ||
			    (f = util_path_join(u->cache_dir, e->d_name)) == NULL)
				continue;
			if (stat(f, &st) == 0) {
				total += st.st_size;
				if (oldest == NULL || st.st_mtime < when) {
					free(oldest);
					oldest = f;
					when = st.st_mtime;
					f = NULL;
				}
			}
			free(f);
		}
		closedir(d);
		if (total + (long long)need <= u->cache_max || oldest == NULL)
			break;
		unlink(oldest);
		free(oldest);
		oldest = NULL;
	}
	free(oldest);
}

/* Keeps the upstream's answer to path (a failure is logged, the answer still served). */
static void
upstream_cache_put(const struct upstream *u, const char *path, const struct buf *answer)
{
	char	*file;

	if (u->cache_ttl <= 0 || answer->len == 0 || (long)answer->len > u->cache_max)
		return;
	if (util_mkdir_p(u->cache_dir, 0700) == -1) {
		log_err("%s: %s: cannot create it", __func__, u->cache_dir);
		return;
	}
	upstream_cache_trim(u, answer->len);
	if ((file = upstream_cache_file(u, path)) == NULL ||
	    util_write_file(file, answer->p, answer->len, 0600) == -1)
		log_err("%s: cannot write a file in %s", __func__, u->cache_dir);
	free(file);
}

int
upstream_context(struct db *db, const char *datadir, const char *libid,
    const char *query, const char *tokens, int json, struct buf *out)
{
	struct upstream	 u;
	struct fetch_req req;
	struct buf	 path;
	char		*ei = NULL, *eq = NULL, *et = NULL, why[256], err[400];
	int		 status = 404;

	buf_init(&path);
	fetch_req_init(&req);
	buf_reset(out);
	if (upstream_load(db, datadir, &u) != 1)
		goto out;
	switch (upstream_decide(db, datadir, &u, libid, why, sizeof(why))) {
	case 0:
		status = buf_printf(out, "library %s: %s", libid, why) == -1 ? -1 : 403;
		goto out;
	case -1:
		status = buf_printf(out, "library %s: the policies could not be read; the "
		    "responder log has the details", libid) == -1 ? -1 : 500;
		goto out;
	}
	status = -1;
	if ((ei = fetch_escape(libid)) == NULL || (eq = fetch_escape(query)) == NULL ||
	    (tokens != NULL && (et = fetch_escape(tokens)) == NULL) ||
	    buf_printf(&path, "/v2/context?libraryId=%s&query=%s%s%s%s", ei, eq,
	    et != NULL ? "&tokens=" : "", et != NULL ? et : "",
	    json ? "&type=json" : "") == -1)
		goto out;
	if (upstream_cache_get(&u, path.p, u.cache_ttl, out)) {
		status = 200;
		goto out;
	}
	if (u.down || upstream_get(&u, path.p, &req, err, sizeof(err)) == -1 ||
	    req.status >= 500) {
		if (u.down)
			snprintf(err, sizeof(err), "%s", u.down_err);
		else if (req.status >= 500)
			snprintf(err, sizeof(err), "HTTP %ld", req.status);
		upstream_log_failure(__func__, err);
		/* Down: a cached answer of any age. */
		if (upstream_cache_get(&u, path.p, -1, out)) {
			status = 200;
			goto out;
		}
		status = req.result == FETCH_ETIMEOUT || (u.down && u.down_timeout) ? 504 :
		    502;
		if (buf_printf(out, "library %s is answered by the upstream, which could "
		    "not be reached: %s", libid, err) == -1)
			status = -1;
		goto out;
	}
	if (req.status == 200) {
		if (json && !upstream_is_json(&req)) {
			status = buf_printf(out, "library %s: the upstream's answer is not "
			    "JSON", libid) == -1 ? -1 : 502;
			goto out;
		}
		status = buf_add(out, req.answer.p, req.answer.len) == -1 ? -1 : 200;
		if (status == 200)
			upstream_cache_put(&u, path.p, out);
		goto out;
	}
	upstream_error_text(db, &req, err, sizeof(err));
	/* 202 (first indexing there) and 4xx are passed on; anything else is 502. */
	status = req.status == 202 || (req.status >= 400 && req.status <= 499) ?
	    (int)req.status : 502;
	if (buf_adds(out, err) == -1)
		status = -1;
out:
	if (status == 200 && upstream_shape(db, libid, tokens, json, out) == -1) {
		log_err("%s: the upstream's answer for %s could not be shaped", __func__,
		    libid);
		buf_reset(out);
		status = buf_printf(out, "library %s: the upstream's answer could not be "
		    "read", libid) == -1 ? -1 : 502;
	}
	free(ei);
	free(eq);
	free(et);
	buf_release(&path);
	fetch_req_release(&req);
	upstream_release(&u);
	return status;
}

int
upstream_test(struct db *db, const char *datadir, char *msg, size_t msgsz)
{
	struct upstream	 u;
	struct fetch_req req;
	json_object	*answer = NULL, *arr;
	char		 host[256];
	int		 rc = -1;

	fetch_req_init(&req);
	switch (upstream_load(db, datadir, &u)) {
	case 0:
		snprintf(msg, msgsz, "no upstream is set (upstream.url is empty): nothing "
		    "leaves this instance");
		goto out;
	case -1:
		snprintf(msg, msgsz, "cannot read the upstream settings");
		goto out;
	}
	fetch_host(u.url, host, sizeof(host));
	if (upstream_get(&u, "/v2/libs/search?libraryName=react", &req, msg, msgsz) == -1)
		goto out;
	if (req.status != 200) {
		snprintf(msg, msgsz, "upstream %s answered HTTP %ld%s", host, req.status,
		    req.status == 401 || req.status == 403 ? " (check upstream.api_key)" :
		    "");
		goto out;
	}
	if ((answer = json_tokener_parse(req.answer.p)) == NULL ||
	    !json_object_object_get_ex(answer, "results", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		snprintf(msg, msgsz, "upstream %s answered HTTP 200 but not a library "
		    "search (is upstream.url the API base, ending in /api?)", host);
		goto out;
	}
	snprintf(msg, msgsz, "upstream %s answers: a library search gave %zu result(s)",
	    host, json_object_array_length(arr));
	rc = 0;
out:
	json_object_put(answer);
	fetch_req_release(&req);
	upstream_release(&u);
	return rc;
}
