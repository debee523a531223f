/*
 * devdocs.h: development files of a repository (contributing guides, code of conduct, CI
 * and release notes, changelogs, to-do and known-bugs lists, code review and style guides,
 * roadmaps, the documentation of internals and of tests), which users of a library rarely
 * ask about: the answer ranks them below user documentation of the same score, it does not
 * drop them.
 */
#ifndef DEVDOCS_H
#define DEVDOCS_H

/* Score factor of a development file's snippets. */
#define DEVDOCS_FACTOR	0.5

/*
 * What path (a document's path in its repository) is: DEVDOCS_USER, DEVDOCS_DEV (a
 * contributing guide, code of conduct, CI or release process file, a to-do or known-bugs
 * list, a code review or style guide, a roadmap or hacking guide, a file under internals/ or
 * tests/) or DEVDOCS_CHANGELOG (a
 * changelog, release notes, history: only its entries older than the current major version
 * are development files, devdocs_major).
 */
#define DEVDOCS_USER		0
#define DEVDOCS_DEV		1
#define DEVDOCS_CHANGELOG	2
int	 devdocs_kind(const char *path);
/* The major version a heading names ("2.3.0", "v1.4 (2020-01-01)"), -1 when none. */
long	 devdocs_major(const char *title);

#endif
