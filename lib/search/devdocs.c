/*
 * devdocs.c: which documents of a repository are development files (devdocs.h), by their
 * path: a file named like a contributing guide, a code of conduct, a to-do or known-bugs
 * list, a code review or style guide, a roadmap, release notes or a changelog, or a file
 * under a folder of CI configuration (.github, .gitlab, .circleci), of a project's internals
 * or tests, or of release notes and changelogs.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "search/devdocs.h"

/* File names (their start, any case) of development files, and their kind. */
static const struct {
	const char	*name;
	int		 kind;
} devdocs_names[] = {
	{ "contributing", DEVDOCS_DEV }, { "contribute", DEVDOCS_DEV },
	{ "code_of_conduct", DEVDOCS_DEV }, { "code-of-conduct", DEVDOCS_DEV },
	{ "codeofconduct", DEVDOCS_DEV }, { "release-process", DEVDOCS_DEV },
	{ "release_process", DEVDOCS_DEV }, { "maintainers", DEVDOCS_DEV },
	{ "maintaining", DEVDOCS_DEV }, { "governance", DEVDOCS_DEV },
	{ "todo", DEVDOCS_DEV }, { "known_bugs", DEVDOCS_DEV }, { "known-bugs", DEVDOCS_DEV },
	{ "code_review", DEVDOCS_DEV }, { "code-review", DEVDOCS_DEV },
	{ "code_style", DEVDOCS_DEV }, { "code-style", DEVDOCS_DEV },
	{ "roadmap", DEVDOCS_DEV }, { "hacking", DEVDOCS_DEV },
	{ "changelog", DEVDOCS_CHANGELOG }, { "changes", DEVDOCS_CHANGELOG },
	{ "history", DEVDOCS_CHANGELOG }, { "release-notes", DEVDOCS_CHANGELOG },
	{ "release_notes", DEVDOCS_CHANGELOG }, { "releasenotes", DEVDOCS_CHANGELOG },
	{ "releases", DEVDOCS_CHANGELOG },
};

/* Folder names (whole, any case) whose files are development files, and their kind. */
static const struct {
	const char	*name;
	int		 kind;
} devdocs_dirs[] = {
	{ ".github", DEVDOCS_DEV }, { ".gitlab", DEVDOCS_DEV }, { ".circleci", DEVDOCS_DEV },
	{ "internals", DEVDOCS_DEV }, { "tests", DEVDOCS_DEV },
	{ "contributing", DEVDOCS_DEV }, { "changelog", DEVDOCS_CHANGELOG },
	{ "changelogs", DEVDOCS_CHANGELOG }, { "changes", DEVDOCS_CHANGELOG },
	{ "release-notes", DEVDOCS_CHANGELOG }, { "release_notes", DEVDOCS_CHANGELOG },
	{ "releasenotes", DEVDOCS_CHANGELOG }, { "releases", DEVDOCS_CHANGELOG },
};

/* 1 when s[0..n) equals word, any case. */
static int
devdocs_eq(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

int
devdocs_kind(const char *path)
{
	const char	*p = path, *slash;
	size_t		 i, n;

	if (path == NULL)
		return DEVDOCS_USER;
	while ((slash = strchr(p, '/')) != NULL) {
		n = (size_t)(slash - p);
		for (i = 0; i < sizeof(devdocs_dirs) / sizeof(devdocs_dirs[0]); i++)
			if (devdocs_eq(p, n, devdocs_dirs[i].name))
				return devdocs_dirs[i].kind;
		p = slash + 1;
	}
	for (i = 0; i < sizeof(devdocs_names) / sizeof(devdocs_names[0]); i++) {
		n = strlen(devdocs_names[i].name);
		/* The name, then the end or a separator: "CHANGELOG.md", not "changes-api.md". */
		if (strncasecmp(p, devdocs_names[i].name, n) == 0 && (p[n] == '\0' ||
		    p[n] == '.' || (p[n] == '-' && isdigit((unsigned char)p[n + 1]))))
			return devdocs_names[i].kind;
	}
	return DEVDOCS_USER;
}

long
devdocs_major(const char *title)
{
	const char	*p;
	long		 v;

	for (p = title; p != NULL && *p != '\0'; p++) {
		if (p > title && (isalnum((unsigned char)p[-1]) || p[-1] == '.'))
			continue;
		if ((*p == 'v' || *p == 'V') && isdigit((unsigned char)p[1]))
			p++;
		if (!isdigit((unsigned char)*p))
			continue;
		for (v = 0; isdigit((unsigned char)*p) && v < 100000; p++)
			v = v * 10 + (*p - '0');
		if (*p == '.' && isdigit((unsigned char)p[1]))
			return v;
		if (*p == '\0')
			break;
	}
	return -1;
}
