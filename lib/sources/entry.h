/*
 * entry.h: the one validator of a source entry, in the shape of a GitOps manifest entry
 * (interface.md, "Manifest file"): {"type": "git"|"wiki"|"website"|"llmstxt"|"openapi",
 * "url" (alias "repoUrl"), "title", "description", ...the fields of that type}. POST
 * /api/libraries, the hosted service's parse-website / parse-openapi endpoints, the web UI
 * and the GitOps reconciler all validate through it, and it derives the library id:
 *
 *   git       /owner/repo (the last two path segments of the URL)
 *   website   /websites/<host and path>          e.g. /websites/docs_example_com_guide
 *   llmstxt   /llmstxt/<host and folder>-<file>  e.g. /llmstxt/example_com-llms.txt
 *   openapi   /openapi/<host and path>           e.g. /openapi/api_example_com_v1_openapi
 *             an upload: /openapi/<title or file name>
 *   wiki      /wiki/<space key>, or for pages /wiki/<title> (else the first page's path)
 *
 * where <host and path> is the URL's host, port and path lowercased, every run of other
 * characters than letters and digits made one '_' (index.html, a trailing '/' and a spec's
 * .json/.yaml/.yml extension dropped), at most ENTRY_ID_PART_MAX characters.
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stddef.h>

#include <json.h>

#include "base/validate.h"

struct parse_req;

#define ENTRY_ID_PART_MAX	120
#define ENTRY_TITLE_MAX	200
#define ENTRY_DESCRIPTION_MAX	2000
#define ENTRY_MAX_PAGES	100000	/* largest maxPages accepted (sources.max_pages caps it) */
#define ENTRY_MAX_DEPTH	20

/* library.c: the fields of POST /api/parse (repoUrl and the git fields). */
extern const struct validate_table gitsrc_parse_table;

/* The source types, in the order of the manifest's table. */
#define ENTRY_TYPE_LIST	"git|wiki|website|llmstxt|openapi"

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

#endif /* ENTRY_H */
