/*
 * store/uploads.h: which OpenAPI libraries name which uploaded file (the "upload" of
 * their settings JSON, a file of DATA_DIR/uploads).
 */
#ifndef STORE_UPLOADS_H
#define STORE_UPLOADS_H

struct db;

/*
 * The upload that OpenAPI library library_id names, as stored (malloc'd; unchecked), in
 * *value, NULL when it names none or is no such library. 0, or -1 (logged).
 */
int	 store_upload_of(struct db *, const char *library_id, char **value);
/*
 * 1 when an OpenAPI library other than except (NULL: none left out) names upload name,
 * 0 when none does, -1 on a database error (logged).
 */
int	 store_upload_used(struct db *, const char *name, const char *except);
/*
 * Calls cb once for each upload that user_id's OpenAPI libraries (0: those of nobody)
 * other than except name, but name (either NULL: none left out); cb returning -1 stops
 * with -1. 0, or -1 (a database error is logged).
 */
int	 store_upload_each_of_user(struct db *, long long user_id, const char *except,
	    const char *name, int (*cb)(const char *value, void *), void *);

#endif /* STORE_UPLOADS_H */
