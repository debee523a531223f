/*
 * devdocs.h: development files of a repository (contributing guides, code of conduct, CI
 * and release notes, changelogs), which users of a library rarely ask about: the answer
 * ranks them below user documentation of the same score, it does not drop them.
 */
#ifndef DEVDOCS_H
#define DEVDOCS_H

/* Score factor of a development file's snippets. */
#define DEVDOCS_FACTOR	0.5

/* 1 when path (a document's path in its repository) is a development file. */
int	 devdocs_is_dev(const char *path);

#endif
