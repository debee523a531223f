/* select.h: which files of a repository are documentation to index. */
#ifndef SELECT_H
#define SELECT_H

#include <stddef.h>

struct select_rules {
	char	**folders;		/* index only below these (empty: everywhere) */
	size_t	  nfolders;
	char	**exclude_folders;
	size_t	  nexclude_folders;
	char	**exclude_files;	/* file names or glob patterns */
	size_t	  nexclude_files;
	int	  index_source;		/* also source files (later issue) */
};

/* 1 when path (relative, '/'-separated) is a documentation file to index, else 0. */
int	 select_path(const struct select_rules *, const char *path);
/*
 * With a source file (code_is_source) whose content says it is generated: "generated"
 * (a generator's marker in its first lines: "Code generated ... DO NOT EDIT.", "@generated",
 * "auto-generated ... do not edit", protoc and grpc headers) or "minified" (very long
 * lines); else NULL. Documentation files are never judged.
 */
const char *select_generated(const char *path, const char *data, size_t len);

#endif /* SELECT_H */
