/*
 * fuzz-request.c: what arrives from the network before any other check: the parse request
 * body (JSON, repoUrl), a source entry (POST /api/libraries, lib/sources/entry.c), a multipart
 * upload body, library ids, question tokenization and the license key format.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/license.h"
#include "base/tokenize.h"
#include "http/http.h"
#include "http/multipart.h"
#include "search/search.h"
#include "sources/entry.h"
#include "sources/gitsrc.h"
#include "sources/libid.h"
#include "sources/request.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct parse_req p;
	struct multipart_part parts[MULTIPART_MAX_PARTS];
	struct license	 lic;
	unsigned char	 pub[32] = { 0 };
	char		 err[512], id[512], host[256], *s, **terms;
	struct libid	 l;
	size_t		 nterms, nparts;

	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (gitsrc_parse_request(s, size, &p, err, sizeof(err)) == 0)
		backend_req_release(&p);
	if (entry_parse_text(s, size, &p, err, sizeof(err)) == 0)
		backend_req_release(&p);
	multipart_parse("multipart/form-data; boundary=b", s, size, parts, &nparts, err,
	    sizeof(err));
	libid_from_url(s, id, sizeof(id), host, sizeof(host), err, sizeof(err));
	if (libid_normalize(s, &l, err, sizeof(err)) == 0)
		libid_release(&l);
	if (tokenize_match_terms(s, &terms, &nterms) == 0)
		tokenize_terms_free(terms, nterms);
	free(tokenize_match_expr(s));
	license_verify(s, pub, 0, &lic);
	http_urldecode(s);
	free(s);
	return 0;
}
