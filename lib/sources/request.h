/* request.h: a validated source entry (struct parse_req), as every source type fills it. */
#ifndef REQUEST_H
#define REQUEST_H

#include <stddef.h>

#include "sources/select.h"

/*
 * A validated source entry (lib/sources/entry.h: POST /api/libraries, POST /api/parse, the
 * hosted service's parse endpoints, the GitOps manifest) and the stored source settings.
 */
struct parse_req {
	const char *type;		/* source type: "git", "website", ... (static) */
	char	 *repo_url;		/* the source's URL, canonical */
	char	 *branch;		/* git: "" = the default branch */
	struct select_rules rules;	/* git: folders, excludeFolders, excludeFiles, ... */
	char	 *settings;		/* other types: canonical JSON of the type's fields */
	char	 *given_settings;	/* ... of only those the entry gave */
	char	 *title, *description;	/* NULL: not given */
	unsigned  given;		/* LIBRARY_GIVEN_*: the source fields the body had */
	char	  id[512];		/* the library id (entry_parse) */
	char	  legacy_id[512];	/* the id the URL got before default ports and
					 * repeated words were dropped, "" when the same:
					 * an existing library keeps it (libid_stable) */
	char	  host[256];		/* host[:port] of the URL */
	char	**versions;		/* git: tags or branches indexed besides branch */
	size_t	  nversions;
};
#define LIBRARY_GIVEN_BRANCH		0x01
#define LIBRARY_GIVEN_FOLDERS		0x02
#define LIBRARY_GIVEN_EXCLUDE_FOLDERS	0x04
#define LIBRARY_GIVEN_EXCLUDE_FILES	0x08
#define LIBRARY_GIVEN_INDEX_SOURCE	0x10
#define LIBRARY_GIVEN_TITLE		0x20
#define LIBRARY_GIVEN_DESCRIPTION	0x40
#define LIBRARY_GIVEN_VERSIONS		0x80
#define LIBRARY_VERSIONS_MAX		20	/* versions of one library */
/* Frees what p holds (backend.c) and zeroes it. */
void	 backend_req_release(struct parse_req *p);

#endif /* REQUEST_H */
