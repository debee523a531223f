/*
 * libname.h: a question without the words naming the library (lib/search/libname.c).
 */
#ifndef LIBNAME_H
#define LIBNAME_H

#include <stddef.h>

struct buf;

/*
 * Writes into out (reset first) the question without its blank-separated words that name
 * the library: each of their parts of two characters or more, numbers aside, is a word of
 * the name part of id ("/owner/name[/version]") or of title, case aside ("argo", "CD", "Discord's" for
 * /openapi/example_com_argo_cd_swagger or "Discord HTTP API"; "express.static" stays),
 * and rare(part, its length, arg) returns 1 (rare in the library; NULL: every part is),
 * or a word of always (may be NULL), rare or not.
 * 1 when it left a word out and kept one that says something; else 0 with out empty (ask
 * the question as it is); -1 when out of memory.
 */
int	 libname_strip(const char *id, const char *title, const char *always,
	    const char *question, int (*rare)(const char *, size_t, void *), void *arg,
	    struct buf *out);

#endif /* LIBNAME_H */
