/*
 * include.h: include directives of documentation resolved before a page is parsed. The
 * syntaxes of the common documentation tools (FastAPI's {* file hl[..] *}, pymdownx.snippets
 * --8<-- "file", mdBook {{#include file:anchor}}, Sphinx literalinclude, VitePress
 * <<< @/file#region, Docusaurus !!raw-loader! imports and file= code fences, Jekyll
 * include_relative and Hugo readfile shortcodes) are replaced by the lines they name of the
 * same repository version, as a fenced code block with the file's language (raw lines when
 * the directive stands inside a code block already): line ranges, anchors and regions
 * honoured, highlight markers dropped. Paths are relative to the including file (or, for
 * VitePress's @/ and a leading /, the repository's root) and confined to the repository; a
 * path out of it, a missing file or one over the size limit leaves a one-line note.
 */
#ifndef INCLUDE_H
#define INCLUDE_H

#include <stddef.h>

#define INCLUDE_MAX_FILES	64	/* includes resolved in one page; more get a note */
#define INCLUDE_MAX_LOOKUPS	512	/* files looked up for one page, found or not */
#define INCLUDE_MAX_OUT		(4 * 1024 * 1024)	/* bytes of a resolved page */

/*
 * Reads path (normalised, relative to the repository's root) into *data (malloc'd) and
 * *len: 0, INCLUDE_MISSING, INCLUDE_TOO_BIG, or -1 on errors (memory). hash, when not NULL,
 * receives the file's content hash (at most hashsz bytes) for include_used.
 */
#define INCLUDE_MISSING	1
#define INCLUDE_TOO_BIG	2
typedef int (*include_read_fn)(void *arg, const char *path, char **data, size_t *len);

/*
 * Resolves the includes of page path (data, len). Returns 1 with *out (malloc'd, *outlen)
 * when the page held a directive, 0 when it held none (*out NULL), -1 when memory is short.
 * used, when not NULL, is called with each file read (for change detection).
 */
int	 include_resolve(const char *path, const char *data, size_t len,
	    include_read_fn read, void *arg,
	    void (*used)(void *arg, const char *path), char **out, size_t *outlen);

/* The path dir(from)/rel normalised into out: 0, or -1 when it leaves the repository. */
int	 include_join(const char *from, const char *rel, char *out, size_t outsz);

/* The fence language of a file name ("" when unknown). */
const char *include_lang(const char *path);

#endif
