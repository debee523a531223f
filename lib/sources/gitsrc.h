/* gitsrc.h: the git source type: its fields, id rule and stored settings, its clone folder. */
#ifndef GITSRC_H
#define GITSRC_H

#include <stddef.h>

struct json_object;
struct parse_req;
struct select_rules;

/*
 * Validates a parse request body against the declared keys and bounds. On failure writes
 * an error naming the field to err and returns -1.
 */
int	 gitsrc_parse_request(const char *json, size_t len, struct parse_req *,
	    char *err, size_t errsz);
/*
 * The same for a JSON object already parsed; when entry is set the body is a git source
 * entry whose URL is named by url_name ("url" or "repoUrl") and whose common fields (type,
 * url, title, description) entry_parse has checked; they are not refused here.
 */
int	 gitsrc_parse_object(struct json_object *root, const char *url_name, int entry,
	    struct parse_req *, char *err, size_t errsz);
void	 backend_req_release(struct parse_req *);
/* Canonical JSON of the source settings (folders, excludeFolders, ...), malloc'd. */
char	*gitsrc_settings_json(const struct parse_req *);
/* Selection rules from stored settings JSON; release with select_rules_release. */
int	 gitsrc_rules(const char *json, struct select_rules *);
void	 select_rules_release(struct select_rules *);
/* The clone folder DATA_DIR/repos/<host>/<owner>/<repo>.git (':' in host made '_'). */
char	*gitsrc_repo_dir(const char *datadir, const char *host, const char *library_id);

#endif /* GITSRC_H */
