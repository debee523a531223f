/*
 * entry.h: the one validator of a source entry, in the shape of a GitOps manifest entry
 * (interface.md, "Manifest file"): {"type": "git"|"wiki"|"website"|"llmstxt"|"openapi",
 * "url" (alias "repoUrl"), "title", "description", ...the fields of that type (its back
 * end's: struct backend_ops, fields and entry, sources/backend.h)}. POST
 * /api/libraries, the hosted service's parse-website / parse-openapi endpoints, the web UI
 * and the GitOps reconciler all validate through it, and it derives the library id:
 *
 *   git       /owner/repo (the last two path segments of the URL)
 *   website   /websites/<host and path>          e.g. /websites/docs_example_com_guide
 *   llmstxt   /llmstxt/<host and folder>-<file>  e.g. /llmstxt/example_com-llms.txt
 *   openapi   /openapi/<host and path>           e.g. /openapi/api_example_com_v1
 *             an upload: /openapi/<title or file name>
 *   wiki      /wiki/<space key>, or for pages /wiki/<title> (else the first page's path)
 *
 * where <host and path> is the URL's host, port and path lowercased, every run of other
 * characters than letters and digits made one '_' (index.html, a trailing '/' and a spec's
 * .json/.yaml/.yml extension dropped), at most LIBID_PART_MAX characters (sources/libid.h).
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stddef.h>

#include <json.h>

#include "base/validate.h"

struct parse_req;

/* Bounds of the entries' fields (entry.c's common ones and the back ends'). */
#define ENTRY_URL_MAX		2048
#define ENTRY_TITLE_MAX		200
#define ENTRY_DESCRIPTION_MAX	2000
#define ENTRY_LIST_MAX		100	/* excludePatterns, pageUrls */
#define ENTRY_PATTERN_MAX	255
#define ENTRY_MAX_PAGES		100000	/* largest maxPages (sources.max_pages caps it) */
#define ENTRY_MAX_DEPTH		20

/*
 * Validates entry (a JSON object) and fills p: p->type, p->repo_url (the canonical URL),
 * p->id and p->host, p->title and p->description (NULL when not given), and either the git
 * fields (branch, rules) or p->settings, the canonical JSON of the type's fields with the
 * defaults filled in (websites: maxPages 100, maxDepth 3, excludePatterns []; llmstxt:
 * maxPages 100; wiki: the form given). 0, or -1 with an error naming the field in err
 * ("out of memory" when it is that). backend_req_release frees p.
 */
int	 entry_parse(json_object *entry, struct parse_req *p, char *err,
	    size_t errsz);
/* The same for a JSON text (a request body: at most VALIDATE_BODY_MAX bytes). */
int	 entry_parse_text(const char *json, size_t len, struct parse_req *p,
	    char *err, size_t errsz);
/*
 * The id of an uploaded OpenAPI description: /openapi/<slug of title, else of file
 * name without its extension>. -1 with err when nothing usable is left.
 */
int	 entry_upload_id(const char *title, const char *file_name, char *id, size_t idsz,
	    char *err, size_t errsz);

/*
 * The source types for forms (GET /api/sources/types): each type's label, what it
 * indexes, what its URL is, and its fields (the common ones first) with their bounds,
 * labels, docs and defaults; see backend_types_json. The caller puts it.
 */
json_object *entry_types_json(void);

/*
 * An entry whose id changed with the rules of new ids (p->legacy_id: default ports and
 * repeated words dropped) names its library as before while that library exists under
 * the old id and none under the new: p->id becomes p->legacy_id. 0, or -1 on a database
 * error.
 */
struct db;
int	 entry_stable_id(struct db *, struct parse_req *p);

#endif /* ENTRY_H */
