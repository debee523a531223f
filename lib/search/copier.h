/*
 * search/copier.h: a node's copier (docs/DESIGN.md, "Local copies: no round trip"), the
 * background process of ctxd-query and of ctxd-mcp (http/http.h: struct http_responder's
 * background) on PostgreSQL. It builds the local copies (store/localcopy.h) the responder's
 * workers ask for (search_set_copier), one at a time at a lower priority, so that no
 * question waits for a build: a question that finds no copy reads the database (one round
 * trip) until the copy is there. When PostgreSQL announces a change of the libraries
 * (LISTEN), it also builds the new version of every library the node holds an older copy
 * of, before any question asks: a re-indexed library's questions keep costing no round
 * trip. At its start and after such a change, the copier holding the node's ahead lock
 * builds ahead a copy of each library the node has none of, while the folder stays under
 * half its budget: a node's questions find their copies from the first. Several copiers
 * of a node (ctxd-query's, ctxd-mcp's) never build one copy twice (segment_fetch_once's
 * lock; a copy there is not built again). On SQLite it waits for its end and builds
 * nothing (the workers ask for nothing there).
 */
#ifndef SEARCH_COPIER_H
#define SEARCH_COPIER_H

/*
 * The copier on fd, the read end of the workers' pipe, until SIGTERM, or until the
 * responder that started it is gone: 0; 1 when it cannot start or its connection is lost
 * (the supervisor starts another).
 */
int	 copier_main(int fd);

#endif
