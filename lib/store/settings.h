/* settings.h: the settings table: declared names, types, defaults and checks; read and written here. */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stddef.h>
#include <stdio.h>

struct json_object;
struct db;

/* Plain value of a setting (malloc'd) or NULL when unset. Secret settings are decrypted. */
char	*settings_get(struct db *, const char *datadir, const char *name);
/* Boolean setting with its default. */
int	 settings_get_bool(struct db *, const char *name, int dflt);
/*
 * Setting name's stored value as the table holds it (sealed for a secret), malloc'd, or
 * NULL when it is not stored (or memory is short). A listening connection (db_listen)
 * reads it from the settings it keeps between requests.
 */
char	*settings_stored(struct db *, const char *name);
/* A setting as a number from 1 to 2^40; dflt when unset or not such a number. */
long	 settings_get_long(struct db *, const char *datadir, const char *name,
	    long dflt);
/*
 * Validates name and value against the settings table; encrypts secrets. 0; -1 when the
 * name or the value is refused (err says why, for the user); -2 on a database error (err
 * has the database's message: for the log or an operator's terminal, never for an HTTP
 * answer: settings_apply_json answers SETTINGS_APPLY_DBERR).
 */
int	 settings_set(struct db *, const char *datadir, const char *name,
	    const char *value, char *err, size_t errsz);
int	 settings_unset(struct db *, const char *name);
/* 1 if the setting is a secret (write-only), 0 if plain, -1 if unknown. */
int	 settings_is_secret(const char *name);
/* Prints every known setting, secrets as "(set)"/"(unset)". */
int	 settings_list(struct db *, FILE *);
/* One entry of the settings table (static data), for the admin API. */
struct settings_desc {
	const char	*name;
	const char	*kind;		/* string secret bool number host enum url */
	int		 secret;	/* write-only */
	const char	*dflt;		/* NULL: none */
	long		 min, max;	/* bounds of a number */
	const char	*help;
	const char	*choices;	/* enum: "a|b|c" */
};
/* Describes the i-th setting; -1 past the last one. */
int	 settings_describe(size_t i, struct settings_desc *);
/* 1 when a value is stored for name (a secret is set), else 0. */
int	 settings_is_set(struct db *, const char *name);
/*
 * The settings as the admin API shows them, {name: {type, help, value, default, ...}},
 * every one or only those in names (NULL-terminated); a secret shows only whether it is
 * set. The caller puts the object.
 */
struct json_object *settings_json(struct db *, const char *datadir,
	    const char *const *names);
enum settings_apply_result { SETTINGS_APPLY_OK, SETTINGS_APPLY_BAD, SETTINGS_APPLY_DBERR };
/*
 * Writes the settings of JSON object o, {name: value, ...}, inside the caller's
 * transaction: a value is a string, true/false for a bool setting, a whole number for a
 * number setting, or "" or null to reset it (a secret is cleared); each is validated by
 * settings_set. allowed (NULL-terminated; NULL: any) limits the names. On BAD (the input)
 * or DBERR err says why; the caller rolls back.
 */
enum settings_apply_result settings_apply_json(struct db *, const char *datadir,
	    struct json_object *o, const char *const *allowed, char *err, size_t errsz);
/* settings_apply_json of any setting in a transaction of its own: all or nothing. */
enum settings_apply_result settings_save_json(struct db *, const char *datadir,
	    struct json_object *o, char *err, size_t errsz);

/*
 * 1 when url carries credentials (userinfo, "user:secret@", before its host): a URL
 * setting refuses them, and they are never shown.
 */
int	 settings_url_has_credentials(const char *url);
/* url as it may be shown (malloc'd): its userinfo replaced by "[redacted]". */
char	*settings_url_redacted(const char *url);

#endif /* SETTINGS_H */
