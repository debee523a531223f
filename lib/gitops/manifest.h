/*
 * manifest.h: the GitOps manifest (ctxd-manifest(5); interface.md, "Manifest file"), a
 * YAML file with a list "repos" of source entries and optional "defaults"
 * (indexSourceCode, branch) that apply to every git entry not giving them. Each entry,
 * converted to a JSON object, is validated by the one source-entry validator entry_parse
 * (lib/sources/entry.h); an entry without "type" is a git entry.
 *
 * Strict: any error (YAML syntax, an unknown key, a field of another type, a value of the
 * wrong type, a missing url, both or neither wiki forms, a bad llms.txt file name, two
 * entries for one library) rejects the whole manifest; every error names the file, line
 * and column ("repos.yaml:4:7: ..."). Bounded: MANIFEST_MAX_BYTES of text, nesting
 * depth, node count and entry count; anchors and aliases are refused (no alias bomb).
 */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <stddef.h>

#include "sources/request.h"

#define MANIFEST_MAX_BYTES	(1024 * 1024)
#define MANIFEST_MAX_DEPTH	8
#define MANIFEST_MAX_NODES	100000
#define MANIFEST_MAX_ENTRIES	5000
#define MANIFEST_MAX_ERRORS	50	/* errors reported; the rest are counted */

struct manifest_entry {
	struct parse_req req;		/* validated; req.id is the library id */
	unsigned long	 line, column;	/* of the entry, 1-based */
};

struct manifest {
	struct manifest_entry *entries;
	size_t		 n;
	char		**errors;	/* "file:line:column: what" */
	size_t		 nerrors;	/* those in errors */
	size_t		 more_errors;	/* past MANIFEST_MAX_ERRORS */
};

/*
 * Parses manifest text (data, len bytes) read from file name into m (manifest_release
 * frees it). 0 when it is valid (m->entries), -1 when it is not or on out of memory
 * (m->errors says why; nothing in m->entries).
 */
int	 manifest_parse(const char *name, const char *data, size_t len,
	    struct manifest *m);
void	 manifest_release(struct manifest *);

#endif /* MANIFEST_H */
