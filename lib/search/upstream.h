/*
 * upstream.h: a Context7-compatible upstream (the hosted API, or another ctxd instance)
 * that answers for the public libraries this instance does not hold.
 *
 * Settings: upstream.url (the API base, e.g. https://HOST/api; empty: none, nothing leaves
 * the instance), upstream.api_key (sealed, sent as a Bearer token to the upstream only),
 * upstream.timeout_s. Every call goes through lib/net/fetch.c under the address policy
 * (fetch.allowed_networks), no redirect followed, the answer capped at UPSTREAM_MAX_SIZE.
 * The caller's own credentials are never forwarded. Upstream text is untrusted: it must
 * be valid UTF-8 and parse as JSON where JSON is expected; no upstream header is copied.
 * It is held to the rules of local answers: invisible characters are stripped, the
 * setting content.injection leaves out (hold) or marks (mark) what speaks to AI agents
 * (a snippet of a context answer, a library of a search, an error text), a context
 * answer is cut to the caller's token budget as search.c counts it, and the fields of
 * the upstream's libraries are one line each (line breaks and control characters become
 * spaces) of at most 1000 bytes.
 */
#ifndef UPSTREAM_H
#define UPSTREAM_H

#include <stddef.h>

#include "base/buf.h"

struct json_object;
struct db;

#define UPSTREAM_MAX_SIZE	(4L * 1024 * 1024)	/* largest upstream answer */
#define UPSTREAM_MAX_RESULTS	50			/* upstream libraries kept */

/* 1 when upstream.url is set, else 0. */
int	 upstream_enabled(struct db *, const char *datadir);

/*
 * Appends to results (a JSON array holding the local libraries, each with an "id") the
 * upstream's libraries matching name (query passed on when not NULL) that the policies
 * allow and whose id is not there already, each with "origin": "upstream". Does nothing
 * when no upstream is set. The upstream's failure leaves results as they were and is
 * logged at most once a minute. 0, or -1 on no memory.
 */
int	 upstream_libs(struct db *, const char *datadir, const char *name,
	    const char *query, struct json_object *results);

/*
 * The context of a library that is not local, from the upstream. tokens and type passed
 * on when not NULL. Returns the HTTP status to answer with: 200 with the answer in out
 * (the text, or JSON when json, held to the local rules within tokens: see above); 403 when the policies deny the id (out names the rule);
 * 404 when no upstream is set (out empty: the caller answers its own 404); the upstream's
 * status with its error message in out; 502/504 when it cannot be reached. -1 on no memory.
 */
int	 upstream_context(struct db *, const char *datadir, const char *libid,
	    const char *query, const char *tokens, int json, struct buf *out);

/*
 * ctxd-admin upstream test: one library search at the upstream. 0 with what it answered
 * in msg, or -1 with why not (URL host and status, never the key).
 */
int	 upstream_test(struct db *, const char *datadir, char *msg, size_t msgsz);

#endif
