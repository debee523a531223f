/*
 * ai/wire.h: what the vendors of ai/vendors/ share to build requests and read answers:
 * error filling, headers, endpoint URLs and JSON access.
 */
#ifndef AI_WIRE_H
#define AI_WIRE_H

#include <stddef.h>

#include <json-c/json.h>

#include "ai/provider.h"

struct buf;

/* Largest embedding dimension accepted. */
#define AI_MAX_DIM	16384

/* Sets *err (when not NULL) to kind/status and a formatted message. */
void	 ai_perr(struct provider_error *, int kind, long status, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));
/* Adds the header "name: value" (malloc'd) to h; -1 when h is full or out of memory. */
int	 ai_header(struct provider_http *, const char *name, const char *value);
/* Authorization: Bearer KEY when the configuration has a key. */
int	 ai_bearer(const struct provider_cfg *, struct provider_http *);
/* The base URL (the setting, or dflt) onto b without trailing slashes. */
int	 ai_add_base(struct buf *, const struct provider_cfg *, const char *dflt);
/* Percent-encodes s (all but RFC 3986 unreserved bytes) onto b. */
int	 ai_add_escaped(struct buf *, const char *s);

/* JSON: a string ("" for NULL); {"key": value} (value consumed); [{"text": s}]. */
struct json_object *ai_jstr(const char *);
struct json_object *ai_jobj1(const char *key, struct json_object *value);
struct json_object *ai_jtextparts(const char *);
/* The member key of o, or element i of array a, when of the type; else NULL. */
struct json_object *ai_jget(struct json_object *o, const char *key, json_type);
struct json_object *ai_jidx(struct json_object *a, size_t i, json_type);
/* Appends the "text" of each element of parts; the count of texts found, -1 out of memory. */
int	 ai_add_texts(struct buf *answer, struct json_object *parts);
/*
 * Copies a JSON array of numbers into row row of *out (n rows of *dim floats, allocated at
 * the first row; *dim set then when 0). -1 with err when missing, too long or not numbers.
 */
int	 ai_vector(struct json_object *a, float **out, size_t n, size_t row, size_t *dim,
	    struct provider_error *err);
/*
 * The n vectors of list (an answer's array, n items wanted): vec sets *arr to item i's array
 * of numbers (NULL: missing) and may set *row (else i), or fails (-1 with err); each row
 * must come once. -1 with err otherwise (*out freed).
 */
int	 ai_vectors(struct json_object *list, size_t n, float **out, size_t *dim,
	    int (*vec)(struct json_object *item, size_t i, size_t n, struct json_object **arr,
	    size_t *row, struct provider_error *err), struct provider_error *err);

#endif
