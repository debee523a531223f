/*
 * devdocs.c: which documents of a repository are development files (devdocs.h), by their
 * path: a file named like a contributing guide, a code of conduct, release notes or a
 * changelog, or a file under a folder of CI configuration (.github, .gitlab, .circleci) or of
 * release notes and changelogs.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "search/devdocs.h"

/* File names (their start, any case) of development files. */
static const char *const devdocs_names[] = {
	"contributing", "contribute", "code_of_conduct", "code-of-conduct",
	"codeofconduct", "changelog", "changes", "history", "release-notes",
	"release_notes", "releasenotes", "releases", "release-process", "maintainers",
	"maintaining", "governance",
};

/* Folder names (whole, any case) whose files are development files. */
static const char *const devdocs_dirs[] = {
	".github", ".gitlab", ".circleci", "changelog", "changelogs", "changes",
	"release-notes", "release_notes", "releasenotes", "releases", "contributing",
};

/* 1 when s[0..n) equals word, any case. */
static int
devdocs_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

int
devdocs_is_dev(const char *path)
{
	const char	*p = path, *slash;
	size_t		 i, n;

	if (path == NULL)
		return 0;
	while ((slash = strchr(p, '/')) != NULL) {
		n = (size_t)(slash - p);
		for (i = 0; i < sizeof(devdocs_dirs) / sizeof(devdocs_dirs[0]); i++)
			if (devdocs_eq(p, n, devdocs_dirs[i]))
				return 1;
		p = slash + 1;
	}
	for (i = 0; i < sizeof(devdocs_names) / sizeof(devdocs_names[0]); i++) {
		n = strlen(devdocs_names[i]);
		/* The name, then the end or a separator: "CHANGELOG.md", not "changes-api.md". */
		if (strncasecmp(p, devdocs_names[i], n) == 0 &&
		    (p[n] == '\0' || p[n] == '.' || (p[n] == '-' && isdigit((unsigned char)p[n + 1]))))
			return 1;
	}
	return 0;
}
