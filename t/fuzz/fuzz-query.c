/*
 * fuzz-query.c: query strings as the responders read them: split at '&' and '=', each
 * name and value percent-decoded (http_urldecode, lib/http/http.c), then checked against
 * declared parameter tables (validate_query, lib/base/validate.c) like those of /api/v2/context,
 * /api/v2/search and the admin lists; the library id and the question go on to the search
 * front end (libid_normalize, the tokenizer). The refusal is answered into a buffer.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/tokenize.h"
#include "base/validate.h"
#include "http/http.h"
#include "search/search.h"
#include "sources/libid.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FZ_MAX_PARAMS	64

static int
fz_check_id(const char *v, char *err, size_t errsz)
{
	if (v[0] != '/') {
		snprintf(err, errsz, "must start with '/'");
		return -1;
	}
	return 0;
}

static const struct validate_field fz_context[] = {
	{ .name = "libraryId", .type = VALIDATE_STRING, .required = 1, .min = 1, .max = 300,
	    .check = fz_check_id },
	{ .name = "query", .type = VALIDATE_STRING, .min = 1, .max = 2000 },
	{ .name = "topic", .type = VALIDATE_STRING, .max = 500 },
	{ .name = "tokens", .type = VALIDATE_INT, .min = 1000, .max = 100000 },
	{ .name = "type", .type = VALIDATE_STRING, .min = 1, .max = 10,
	    .choices = "txt|json" },
	{ .name = "fast", .type = VALIDATE_BOOL },
	{ .name = NULL }
};

static const struct validate_field fz_list[] = {
	{ .name = "state", .type = VALIDATE_STRING, .min = 1, .max = 20,
	    .choices = "queued|running|done|failed" },
	{ .name = "limit", .type = VALIDATE_INT, .min = 1, .max = 500 },
	{ .name = "offset", .type = VALIDATE_INT, .max = 1000000 },
	{ .name = "force", .type = VALIDATE_BOOL },
	{ .name = NULL }
};

static const struct validate_table fz_tables[] = {
	{ fz_context, 0, "parameter" },
	{ fz_list, 0, "parameter" },
	{ fz_list, 1, "parameter" },
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_param params[FZ_MAX_PARAMS];
	struct http_req	 r;
	struct buf	 out;
	char		*qs, *pair, *save = NULL, *eq, err[400], **terms;
	struct libid	 l;
	const char	*v;
	size_t		 i, n = 0, nterms;

	if (size == 0 || memchr(data + 1, '\0', size - 1) != NULL ||
	    (qs = malloc(size)) == NULL)
		return 0;
	memcpy(qs, data + 1, size - 1);
	qs[size - 1] = '\0';
	for (pair = strtok_r(qs, "&", &save); pair != NULL && n < FZ_MAX_PARAMS;
	    pair = strtok_r(NULL, "&", &save)) {
		if ((eq = strchr(pair, '=')) != NULL)
			*eq++ = '\0';
		params[n].name = pair;
		params[n].value = eq != NULL ? eq : pair + strlen(pair);
		if (http_urldecode(params[n].name) == -1 ||
		    http_urldecode(params[n].value) == -1)
			goto out;	/* the responder answers 400 */
		n++;
	}
	memset(&r, 0, sizeof(r));
	buf_init(&out);
	r.method = "GET";
	r.path = "/api/v2/context";
	r.params = params;
	r.nparams = n;
	r.capture = &out;
	if (validate_query(&r, &fz_tables[data[0] % 3]) == 0) {
		if ((v = http_param(&r, "libraryId")) != NULL &&
		    libid_normalize(v, &l, err, sizeof(err)) == 0)
			libid_release(&l);
		if ((v = http_param(&r, "query")) != NULL &&
		    tokenize_match_terms(v, &terms, &nterms) == 0)
			tokenize_terms_free(terms, nterms);
	}
	buf_release(&out);
	(void)i;
out:
	free(qs);
	return 0;
}
