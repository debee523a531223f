/* code.h: documentation comments of source files as sections (indexSourceCode). */
#ifndef CODE_H
#define CODE_H

#include <stddef.h>

struct doc;

/* 1 when path names a source file whose doc comments can be indexed (.rs .c .go .py ...). */
int	 code_is_source(const char *path);
/*
 * Doc comments of a source file (Rust //! and ///, Javadoc-style blocks, Go comment blocks,
 * Python docstrings, ...) as sections: one per documented item titled with its symbol
 * ("Serve::with_graceful_shutdown"), plus one per Markdown heading inside the comment
 * ("Serve::with_graceful_shutdown > Example"); the item's signature closes its first
 * section. Same contract as doc_parse; a file without doc comments has no sections.
 */
int	 code_parse(const char *path, const char *data, size_t len, struct doc *out);

#endif /* CODE_H */
