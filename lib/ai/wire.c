/*
 * ai/wire.c: what the vendors share to build requests and read answers (ai/wire.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai/wire.h"
#include "base/buf.h"

void
ai_perr(struct provider_error *err, int kind, long status, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL)
		return;
	err->kind = kind;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

int
ai_header(struct provider_http *h, const char *name, const char *value)
{
	struct buf	 b;

	if (h->nheaders >= sizeof(h->headers) / sizeof(h->headers[0]))
		return -1;
	buf_init(&b);
	if (buf_printf(&b, "%s: %s", name, value) == -1) {
		buf_release(&b);
		return -1;
	}
	h->headers[h->nheaders++] = buf_detach(&b);
	return 0;
}

int
ai_bearer(const struct provider_cfg *c, struct provider_http *h)
{
	struct buf	 b;
	int		 rc = 0;

	if (c->key == NULL || *c->key == '\0')
		return 0;
	buf_init(&b);
	if (buf_printf(&b, "Bearer %s", c->key) == -1 ||
	    ai_header(h, "Authorization", b.p) == -1)
		rc = -1;
	if (b.p != NULL)
		explicit_bzero(b.p, b.len);
	buf_release(&b);
	return rc;
}

int
ai_add_escaped(struct buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
			if (buf_addc(b, (char)c) == -1)
				return -1;
		} else if (buf_printf(b, "%%%02X", c) == -1)
			return -1;
	}
	return 0;
}

int
ai_add_base(struct buf *b, const struct provider_cfg *c, const char *dflt)
{
	const char	*s = c->base_url != NULL && *c->base_url != '\0' ?
	    c->base_url : dflt;
	size_t		 n = strlen(s);

	while (n > 0 && s[n - 1] == '/')
		n--;
	return buf_add(b, s, n);
}

struct json_object *
ai_jstr(const char *s)
{
	return json_object_new_string(s != NULL ? s : "");
}

struct json_object *
ai_jobj1(const char *key, struct json_object *value)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, key, value);
	return o;
}

struct json_object *
ai_jtextparts(const char *s)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, ai_jobj1("text", ai_jstr(s)));
	return a;
}

struct json_object *
ai_jget(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

struct json_object *
ai_jidx(struct json_object *a, size_t i, json_type type)
{
	struct json_object *v;

	if (a == NULL || !json_object_is_type(a, json_type_array) ||
	    i >= json_object_array_length(a))
		return NULL;
	v = json_object_array_get_idx(a, i);
	return v != NULL && json_object_is_type(v, type) ? v : NULL;
}

int
ai_add_texts(struct buf *answer, struct json_object *parts)
{
	struct json_object	*t;
	size_t			 i;
	int			 found = 0;

	for (i = 0; parts != NULL && i < json_object_array_length(parts); i++) {
		if ((t = ai_jget(ai_jidx(parts, i, json_type_object), "text",
		    json_type_string)) == NULL)
			continue;
		if (buf_adds(answer, json_object_get_string(t)) == -1)
			return -1;
		found++;
	}
	return found;
}

int
ai_vector(struct json_object *a, float **out, size_t n, size_t row, size_t *dim,
    struct provider_error *err)
{
	struct json_object	*x;
	size_t			 len, i;

	if (a == NULL || (len = json_object_array_length(a)) == 0) {
		ai_perr(err, PROVIDER_EMALFORMED, 200,
		    "malformed response: vector %zu is missing", row);
		return -1;
	}
	if (*out == NULL) {
		if (*dim == 0)
			*dim = len;
		if (*dim > AI_MAX_DIM) {
			ai_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: "
			    "%zu dimensions", *dim);
			return -1;
		}
		if ((*out = calloc(n * *dim, sizeof(float))) == NULL) {
			ai_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
			return -1;
		}
	}
	if (len != *dim) {
		ai_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: vector "
		    "%zu has %zu dimensions, not %zu", row, len, *dim);
		return -1;
	}
	for (i = 0; i < len; i++) {
		x = json_object_array_get_idx(a, i);
		if (x == NULL || !(json_object_is_type(x, json_type_double) ||
		    json_object_is_type(x, json_type_int))) {
			ai_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: "
			    "vector %zu holds a non-number", row);
			return -1;
		}
		(*out)[row * *dim + i] = (float)json_object_get_double(x);
	}
	return 0;
}

int
ai_vectors(struct json_object *list, size_t n, float **out, size_t *dim,
    int (*vec)(struct json_object *item, size_t i, size_t n, struct json_object **arr,
    size_t *row, struct provider_error *err), struct provider_error *err)
{
	struct json_object	*arr;
	unsigned char		*seen = NULL;
	size_t			 i, row, count;
	int			 rc = -1;

	count = list != NULL ? json_object_array_length(list) : 0;
	if (count != n) {
		ai_perr(err, PROVIDER_EMALFORMED, 200, "malformed response: %zu "
		    "vectors for %zu texts", count, n);
		goto out;
	}
	if ((seen = calloc(n, 1)) == NULL) {
		ai_perr(err, PROVIDER_EINTERNAL, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		row = i;
		arr = NULL;
		if (vec(json_object_array_get_idx(list, i), i, n, &arr, &row, err) == -1)
			goto out;
		if (seen[row]) {
			ai_perr(err, PROVIDER_EMALFORMED, 200,
			    "malformed response: index %zu repeated", row);
			goto out;
		}
		seen[row] = 1;
		if (ai_vector(arr, out, n, row, dim, err) == -1)
			goto out;
	}
	rc = 0;
out:
	if (rc == -1) {
		free(*out);
		*out = NULL;
	}
	free(seen);
	return rc;
}
