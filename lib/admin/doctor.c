/*
 * doctor.c: ctxd-admin doctor, the checks of an installed ctxd (the Debian package's
 * layout, ctxd(7)): one line each, "ok   what" or "FIX  what is wrong: what to do".
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "admin/backup.h"
#include "admin/health.h"
#include "admin/provcheck.h"
#include "ai/provider.h"
#include "base/license.h"
#include "base/util.h"
#include "store/aiconfig.h"
#include "store/db.h"
#include "store/inspect.h"
#include "store/library.h"
#include "store/segstore.h"
#include "admin/segments.h"
#include "search/segment.h"

#define DOCTOR_DEFAULTS		"/etc/default/ctxd"
#define DOCTOR_SITE		"/etc/nginx/sites-enabled/ctxd"
#define DOCTOR_CRON		"/etc/cron.d/ctxd"
#define DOCTOR_UNITS		"/lib/systemd/system"
#define DOCTOR_EXPIRY_WARN	(14 * 86400)	/* a license that ends sooner: FIX */

/* The file DATABASE_URL was taken from by doctor_database_url (NULL: the environment's). */
static const char *doctor_url_file;

/* Prints one check's line; counts a failure in *bad. */
static void
doctor_line(FILE *out, int *bad, int ok, const char *fmt, ...)
{
	va_list	 ap;

	fputs(ok ? "ok   " : "FIX  ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	if (!ok)
		(*bad)++;
}

/*
 * The value of NAME=VALUE in the shell-style file path (the last one; quotes around the
 * value removed), malloc'd, or NULL.
 */
static char *
doctor_defaults_get(const char *path, const char *name)
{
	FILE	*f;
	char	 line[4096], *v, *val = NULL;
	size_t	 n = strlen(name), len;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, n) != 0 || line[n] != '=')
			continue;
		v = line + n + 1;
		len = strcspn(v, "\r\n");
		v[len] = '\0';
		if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
			v[len - 1] = '\0';
			v++;
		}
		free(val);
		val = strdup(v);
	}
	fclose(f);
	return val;
}

static void
doctor_license(FILE *out, int *bad, const char *defaults)
{
	struct license		 lic;
	enum license_status	 st;
	char			*key, date[11];
	const char		*env = getenv("LICENSE_KEY");
	time_t			 now = license_now();

	key = env != NULL && *env != '\0' ? strdup(env) :
	    doctor_defaults_get(defaults, "LICENSE_KEY");
	if (key == NULL || key[strspn(key, " \t\r\n")] == '\0') {
		free(key);
		key = license_key_load(NULL);
	}
	st = license_verify_any(key, now, &lic);
	if (st == LICENSE_OK && license_format_date(lic.expires, date) == -1)
		date[0] = '\0';
	if (st == LICENSE_OK && lic.expires - now < DOCTOR_EXPIRY_WARN)
		doctor_line(out, bad, 0, "license: expires on %s (plan %s): renew it and "
		    "set the new key in %s", date, lic.plan, defaults);
	else if (st == LICENSE_OK)
		doctor_line(out, bad, 1, "license: valid until %s (plan %s, %s)", date,
		    lic.plan, lic.licensee);
	else
		doctor_line(out, bad, 0, "license: LICENSE_KEY is %s: set your license key "
		    "in %s, then systemctl restart ctxd.target",
		    st == LICENSE_MISSING ? "not set" : st == LICENSE_EXPIRED ? "expired" :
		    st == LICENSE_MALFORMED ? "malformed" : "not signed for this build",
		    defaults);
	free(key);
}

/* The service's user: $CTXD_USER, else ctxd. */
static const char *
doctor_user(void)
{
	const char	*u = getenv("CTXD_USER");

	return u != NULL && *u != '\0' ? u : "ctxd";
}

/*
 * The owner (the service's user, $CTXD_USER or ctxd, when it exists, else DATA_DIR's) and
 * the modes of DATA_DIR and secret.key: nothing for the group to write, nothing for others.
 */
static void
doctor_files(FILE *out, int *bad, const char *dir)
{
	const char	*user = doctor_user();
	struct passwd	*pw = getpwnam(user);
	struct stat	 st, kst;
	char		*key = util_path_join(dir, "secret.key");
	uid_t		 uid;

	if (stat(dir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		doctor_line(out, bad, 0, "DATA_DIR %s: missing: run ctxd-admin init as the "
		    "user ctxd (or dpkg-reconfigure ctxd)", dir);
		goto out;
	}
	uid = pw != NULL ? pw->pw_uid : st.st_uid;
	if (st.st_uid != uid || (st.st_mode & 027) != 0)
		doctor_line(out, bad, 0, "DATA_DIR %s: owner %ld, mode %04o: chown %s:%s "
		    "%s && chmod 0750 %s", dir, (long)st.st_uid,
		    (unsigned)(st.st_mode & 07777), user, user, dir, dir);
	else
		doctor_line(out, bad, 1, "DATA_DIR %s: owner and mode %04o", dir,
		    (unsigned)(st.st_mode & 07777));
	if (key == NULL || lstat(key, &kst) == -1 || !S_ISREG(kst.st_mode))
		doctor_line(out, bad, 0, "secret.key: missing: run ctxd-admin init as the user "
		    "ctxd, or restore it from a backup made with --with-secret");
	else if (kst.st_uid != uid || (kst.st_mode & 077) != 0)
		doctor_line(out, bad, 0, "secret.key: owner %ld, mode %04o: chown %s:%s "
		    "%s && chmod 0600 %s", (long)kst.st_uid, (unsigned)(kst.st_mode & 07777),
		    user, user, key, key);
	else
		doctor_line(out, bad, 1, "secret.key: owner and mode %04o",
		    (unsigned)(kst.st_mode & 07777));
out:
	free(key);
}

/*
 * With DATABASE_URL: the PostgreSQL server reached (its version; the URL's host, port,
 * database and user, never its password), or why it is not.
 */
static void
doctor_connection(FILE *out, int *bad, struct db *db, const char *why)
{
	char	 where[512], from[600];

	if (doctor_url_file != NULL)
		snprintf(from, sizeof(from), "DATABASE_URL in %s", doctor_url_file);
	else
		snprintf(from, sizeof(from), "DATABASE_URL of the environment");
	if (store_inspect_where(where, sizeof(where)) == -1)
		doctor_line(out, bad, 0, "database: %s: %s", from, where);
	else if (db == NULL)
		doctor_line(out, bad, 0, "database: cannot connect to PostgreSQL at %s (%s): %s: "
		    "check DATABASE_URL, that the server runs and that it lets this host and user "
		    "in", where, from, why);
	else
		doctor_line(out, bad, 1, "database: %s at %s (%s)", store_inspect_server(db),
		    where, from);
}

/* The schema version found (0: none; -1: none could be read). */
static int
doctor_schema(FILE *out, int *bad, const char *dir, struct db *db)
{
	char		 release[64], day[32];
	int		 v = -1, from, pg = db_url() != NULL;

	if (db == NULL && pg)
		return -1;	/* doctor_connection has said why */
	if (db != NULL && db_user_version(db, &v) == -1)
		v = -1;
	if (v == db_schema_version()) {
		if (store_inspect_last_upgrade(db, &from, release, sizeof(release), day,
		    sizeof(day)) == 0)
			doctor_line(out, bad, 1, "database: schema version %d (from %d by "
			    "ctxd %s on %s)", v, from, release, day);
		else
			doctor_line(out, bad, 1, "database: schema version %d", v);
	}
	else if (v == -1 && pg)
		doctor_line(out, bad, 0, "database: the schema version cannot be read from "
		    "PostgreSQL: %s: check the user's rights on the database", db_errmsg(db));
	else if (v == -1)
		doctor_line(out, bad, 0, "database %s/ctxd.db: cannot be read: run "
		    "ctxd-admin init as the user ctxd", dir);
	else if (v == 0 && pg)
		doctor_line(out, bad, 0, "database: the PostgreSQL database holds no ctxd "
		    "schema (this ctxd's is version %d): run ctxd-admin init as the user ctxd",
		    db_schema_version());
	else if (pg)
		doctor_line(out, bad, 0, "database: schema version %d in PostgreSQL, this "
		    "ctxd's is %d: %s", v, db_schema_version(), v < db_schema_version() ?
		    "run ctxd-admin init as the user ctxd (every node sharing the database then "
		    "needs this release)" : "a newer ctxd upgraded the database: install that "
		    "release on this node too");
	else
		doctor_line(out, bad, 0, "database: schema version %d, this ctxd's is %d: %s",
		    v, db_schema_version(), v < db_schema_version() ?
		    "run ctxd-admin init as the user ctxd" : "install the newer ctxd again");
	return v;
}

/*
 * The database's size and its free pages (rows deleted: libraries, versions, re-indexed
 * files): information, never a fix; past a tenth of the file and 16 MB it names the command
 * that gives them back to the disk. PostgreSQL's size only: autovacuum reuses the space.
 */
static void
doctor_space(FILE *out, int *bad, struct db *db)
{
	long long	 size, freeb;

	if (db == NULL || db_space(db, &size, &freeb) == -1)
		return;		/* doctor_schema has said why */
	if (db_url() != NULL)
		doctor_line(out, bad, 1, "database: %.1f MB in PostgreSQL (its autovacuum "
		    "reuses the space of deleted rows)", (double)size / 1048576.0);
	else
		doctor_line(out, bad, 1, "database: %.1f MB, %.1f MB of it free pages%s",
		    (double)size / 1048576.0, (double)freeb / 1048576.0,
		    freeb * 10 >= size && freeb >= (16LL << 20) ? " (deleted rows): ctxd-admin "
		    "compact gives them back to the disk" : "");
}

/* The names of the index segments in use (doctor_segments). */
struct doctor_names {
	char	**v;
	size_t	 n, cap;
};

static int
doctor_name_add(long long lib_no, long long index_version, void *arg)
{
	struct doctor_names *d = arg;
	char	 name[64], **nv;

	if (d->n == d->cap) {
		size_t ncap = d->cap ? d->cap * 2 : 64;

		if ((nv = reallocarray(d->v, ncap, sizeof(*nv))) == NULL)
			return -1;
		d->v = nv;
		d->cap = ncap;
	}
	snprintf(name, sizeof(name), "%lld-%lld.seg", lib_no, index_version);
	if ((d->v[d->n] = strdup(name)) == NULL)
		return -1;
	d->n++;
	return 0;
}

static int
doctor_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
doctor_name_keep(const char *name, void *arg)
{
	const struct doctor_names *d = arg;

	return d->n > 0 && bsearch(&name, d->v, d->n, sizeof(*d->v), doctor_name_cmp) != NULL;
}

/*
 * With PostgreSQL, a segment stored in the database (store/segstore.h) and what this
 * node's copy of it is (doctor_seg_one, doctor_cache).
 */
struct doctor_stored {
	char		 name[64];
	long long	 size, embed_version;
	char		 sha256[65], vec_model[SEGSTORE_MODEL_MAX];
	int		 used;		/* the current segment of a library */
	enum segments_status local;	/* this node's file, as doctor_seg_one found it */
	int		 local_vectors;	/* it holds vectors: of local_embed_version, local_model */
	long long	 local_embed_version;
	char		 local_model[SEGSTORE_MODEL_MAX];
};

struct doctor_store {
	struct doctor_stored *v;
	size_t		 n, cap;
};

static int
doctor_stored_add(const char *name, const struct segstore_info *info, void *arg)
{
	struct doctor_store *st = arg;
	struct doctor_stored *nv, *e;

	if (st->n == st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 64;

		if ((nv = reallocarray(st->v, ncap, sizeof(*nv))) == NULL)
			return -1;
		st->v = nv;
		st->cap = ncap;
	}
	e = &st->v[st->n++];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->size = info->size;
	e->embed_version = info->embed_version;
	snprintf(e->sha256, sizeof(e->sha256), "%s", info->sha256);
	snprintf(e->vec_model, sizeof(e->vec_model), "%s", info->vec_model);
	return 0;
}

static int
doctor_stored_cmp(const void *a, const void *b)
{
	return strcmp(((const struct doctor_stored *)a)->name,
	    ((const struct doctor_stored *)b)->name);
}

/* The stored segment of the file name, or NULL. */
static struct doctor_stored *
doctor_stored_find(struct doctor_store *st, const char *name)
{
	struct doctor_stored key;

	if (st->n == 0 || snprintf(key.name, sizeof(key.name), "%s", name) >=
	    (int)sizeof(key.name))
		return NULL;
	return bsearch(&key, st->v, st->n, sizeof(*st->v), doctor_stored_cmp);
}

/* The segments of the libraries, counted for doctor_segments. */
struct doctor_seg {
	FILE		*out;
	int		*bad;
	struct doctor_store *store;
	size_t		 present, missing, damaged;
	size_t		 fetchable;	/* missing here, stored in PostgreSQL: fetched on use */
	long long	 bytes;
	size_t		 withvec, vectors;	/* segments with vector sections, their rows */
};

static int
doctor_seg_one(const struct segments_row *r, void *arg)
{
	struct doctor_seg *c = arg;
	struct doctor_stored *s = r->status == SEGMENTS_NO_INDEX ? NULL :
			    doctor_stored_find(c->store, strrchr(r->path, '/') + 1);

	if (s != NULL) {
		s->used = 1;
		s->local = r->status;
		if (r->status == SEGMENTS_OK && r->has_vectors) {
			s->local_vectors = 1;
			s->local_embed_version = r->vec_embed_version;
			snprintf(s->local_model, sizeof(s->local_model), "%s", r->vec_model);
		}
	}
	c->bytes += r->bytes;
	switch (r->status) {
	case SEGMENTS_OK:
		c->present++;
		c->withvec += r->has_vectors;
		c->vectors += r->vectors;
		break;
	case SEGMENTS_DAMAGED:
		c->damaged++;
		doctor_line(c->out, c->bad, 0, "segment of %s (%s): %s: `ctxd-admin index "
		    "rebuild` rewrites it now, or the library's next index run", r->id,
		    strrchr(r->path, '/') + 1, r->why);
		break;
	case SEGMENTS_MISSING:
		if (s != NULL)
			c->fetchable++;
		else
			c->missing++;
		break;
	case SEGMENTS_NO_INDEX:
		break;
	}
	return 0;
}

/* The SHA-256 of the file path as 64 lowercase hex digits: 0, or -1. */
static int
doctor_file_sha256(const char *path, char out[65])
{
	unsigned char	 buf[65536], d[EVP_MAX_MD_SIZE];
	unsigned int	 dlen = 0;
	EVP_MD_CTX	*md;
	FILE		*f;
	size_t		 n;
	int		 rc = -1;

	if ((f = fopen(path, "rb")) == NULL)
		return -1;
	if ((md = EVP_MD_CTX_new()) != NULL && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1) {
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			if (EVP_DigestUpdate(md, buf, n) != 1)
				break;
		if (!ferror(f) && feof(f) && EVP_DigestFinal_ex(md, d, &dlen) == 1 &&
		    dlen == 32) {
			util_hex(d, dlen, out);
			rc = 0;
		}
	}
	EVP_MD_CTX_free(md);
	fclose(f);
	return rc;
}

/*
 * 1 when the service's user may create files in path (a folder): as root, by its owner
 * and mode (the owner being that user, or the owner of DATA_DIR when there is no such
 * user, as doctor_files judges); as anyone else, by access(2). A read-only file system
 * is never writable.
 */
static int
doctor_writable(const char *path, uid_t uid)
{
	struct statvfs	 vfs;
	struct stat	 st;

	if (stat(path, &st) == -1 || !S_ISDIR(st.st_mode))
		return 0;
	if (statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0)
		return 0;
	if (geteuid() != 0)
		return access(path, W_OK | X_OK) == 0;
	return (st.st_uid == uid && (st.st_mode & 0300) == 0300) ||
	    (st.st_mode & 0003) == 0003;
}

/*
 * With PostgreSQL, this node's DATA_DIR/segments as a cache of the segments stored in the
 * database: each library's stored segment is here as stored (its size and SHA-256), not
 * fetched yet (a query of the library fetches it), here with other vectors (fetched when a
 * query needs the stored ones), or different (damaged, or written over): then a fix.
 * Segments here that the database does not hold, and stored ones of versions no library
 * serves, are counted. And the folder must be writable by the service's user, or no fetch
 * can put a segment there.
 */
static void
doctor_cache(FILE *out, int *bad, const char *dir, const char *sdir,
    struct doctor_store *st, const struct doctor_names *d)
{
	struct passwd	*pw = getpwnam(doctor_user());
	struct stat	 fst, dst;
	char		 path[4096], sha[65], names[256] = "", extra[1024] = "";
	long long	 sbytes = 0, hbytes = 0;
	size_t		 i, used = 0, here = 0, notyet = 0, othervec = 0, differ = 0, stale = 0,
			 unstored = 0, len;
	const char	*wdir;

	for (i = 0; i < st->n; i++) {
		struct doctor_stored *s = &st->v[i];
		int	 same;

		if (!s->used) {
			stale++;
			continue;
		}
		used++;
		sbytes += s->size;
		snprintf(path, sizeof(path), "%s/%s", sdir, s->name);
		if (stat(path, &fst) == -1) {
			notyet++;
			continue;
		}
		same = fst.st_size == s->size && doctor_file_sha256(path, sha) == 0 &&
		    strcmp(sha, s->sha256) == 0;
		if (same) {
			here++;
			hbytes += fst.st_size;
		} else if (s->local == SEGMENTS_OK && (s->local_vectors ?
		    s->local_embed_version != s->embed_version ||
		    strcmp(s->local_model, s->vec_model) != 0 : s->embed_version != 0)) {
			othervec++;
			hbytes += fst.st_size;
		} else {
			differ++;
			len = strlen(names);
			if (len + strlen(s->name) + 8 < sizeof(names))
				snprintf(names + len, sizeof(names) - len, "%s%s", len ? ", " : "",
				    s->name);
			else if (len + 5 < sizeof(names) && strcmp(names + len - 3, "...") != 0)
				snprintf(names + len, sizeof(names) - len, ", ...");
		}
	}
	/* the libraries' segments here that the database does not hold */
	for (i = 0; i < d->n; i++) {
		snprintf(path, sizeof(path), "%s/%s", sdir, d->v[i]);
		if (doctor_stored_find(st, d->v[i]) == NULL && stat(path, &fst) == 0)
			unstored++;
	}
	len = 0;
	if (notyet > 0)
		len += (size_t)snprintf(extra + len, sizeof(extra) - len, ", %zu not fetched yet "
		    "(the library's next query fetches it)", notyet);
	if (othervec > 0 && len < sizeof(extra))
		len += (size_t)snprintf(extra + len, sizeof(extra) - len, ", %zu with other "
		    "vectors than the stored copy (fetched when a query needs those)", othervec);
	if (unstored > 0 && len < sizeof(extra))
		snprintf(extra + len, sizeof(extra) - len, "; %zu here not stored in the "
		    "database (other nodes build that index from the database until the "
		    "library's next index run stores it)", unstored);
	doctor_line(out, bad, 1, "segment cache: %zu segment%s stored in PostgreSQL (%.1f MB), "
	    "%zu of them in %s as stored (%.1f MB, size and SHA-256 checked)%s", used,
	    used == 1 ? "" : "s", (double)sbytes / 1048576.0, here, sdir,
	    (double)hbytes / 1048576.0, extra);
	if (stale > 0)
		doctor_line(out, bad, 1, "segment cache: %zu stored segment%s of versions no "
		    "library serves (replaced by the next index run of the library)", stale,
		    stale == 1 ? "" : "s");
	if (differ > 0)
		doctor_line(out, bad, 0, "segment cache: %zu file%s in %s differ%s from the copy "
		    "stored in PostgreSQL (size or SHA-256): %s: remove %s there; the library's "
		    "next query fetches the stored copy (or `ctxd-admin index rebuild` writes it "
		    "now)", differ, differ == 1 ? "" : "s", sdir, differ == 1 ? "s" : "", names,
		    differ == 1 ? "it" : "them");
	/* a fetch writes into DATA_DIR/segments, made in DATA_DIR when it is not there */
	wdir = stat(sdir, &dst) == 0 ? sdir : dir;
	if (stat(dir, &fst) == -1)
		return;		/* doctor_files has said so */
	if (!doctor_writable(wdir, pw != NULL ? pw->pw_uid : fst.st_uid))
		doctor_line(out, bad, 0, "segment cache: %s is not writable by the user %s: "
		    "no segment can be fetched from PostgreSQL (each query process builds its "
		    "own copy from the database): chown %s:%s %s && chmod 0750 %s", wdir,
		    doctor_user(), doctor_user(), doctor_user(), wdir, wdir);
}

static void	doctor_copies(FILE *, int *, const char *, struct doctor_names *);

/*
 * The index segments (docs/DESIGN.md, "Index segments"): those no library version names
 * are removed (and temporary files of dead writers); each one in use is checked as a query
 * process checks it before use. A damaged or missing one is reported (until it is
 * written, query processes build that library's index from the database, each its own
 * copy): `ctxd-admin index rebuild` writes it, as does the library's next index run. With
 * PostgreSQL, a missing one that the database stores is not a fix (a query fetches it),
 * and the folder is compared with the database's segments (doctor_cache).
 */
static void
doctor_segments(FILE *out, int *bad, const char *dir, struct db *db)
{
	struct doctor_names d = { NULL, 0, 0 };
	struct doctor_store st = { NULL, 0, 0 };
	struct doctor_seg c;
	char		*sdir = NULL;
	size_t		 i;
	int		 removed;

	if (db == NULL)
		return;		/* doctor_schema has said why */
	memset(&c, 0, sizeof(c));
	c.out = out;
	c.bad = bad;
	c.store = &st;
	if (store_library_index_versions(db, doctor_name_add, &d) == -1 ||
	    (sdir = util_path_join(dir, "segments")) == NULL) {
		doctor_line(out, bad, 0, "segments: the libraries could not be read");
		goto out;
	}
	if (segstore_each(db, doctor_stored_add, &st) == -1) {
		doctor_line(out, bad, 0, "segment cache: the segments stored in PostgreSQL "
		    "could not be read: %s", db_errmsg(db));
		goto out;
	}
	if (st.n > 0)
		qsort(st.v, st.n, sizeof(*st.v), doctor_stored_cmp);
	if (d.n > 0)
		qsort(d.v, d.n, sizeof(*d.v), doctor_name_cmp);
	if ((removed = segment_remove_unused(sdir, doctor_name_keep, &d)) == -1) {
		doctor_line(out, bad, 0, "segments: %s: %s", sdir, strerror(errno));
		goto out;
	}
	if (segments_each(db, dir, doctor_seg_one, &c) == -1) {
		doctor_line(out, bad, 0, "segments: the libraries could not be read");
		goto out;
	}
	if (c.missing > 0)
		doctor_line(out, bad, 0, "segments: %zu indexed librar%s without a segment "
		    "(each query process builds its own copy): `ctxd-admin index rebuild` "
		    "writes them", c.missing, c.missing == 1 ? "y" : "ies");
	doctor_line(out, bad, c.damaged == 0, "segments: %zu of %zu indexed libraries, "
	    "%.1f MB; %d unused file%s removed; vectors in %zu (%zu vectors)", c.present,
	    c.present + c.missing + c.damaged + c.fetchable, (double)c.bytes / 1048576.0,
	    removed, removed == 1 ? "" : "s", c.withvec, c.vectors);
	if (segstore_enabled(db)) {
		doctor_cache(out, bad, dir, sdir, &st, &d);
		doctor_copies(out, bad, dir, &d);
	}
out:
	for (i = 0; i < d.n; i++)
		free(d.v[i]);
	free(d.v);
	free(st.v);
	free(sdir);
}

/* A local copy "<lib_no>-<v>.db" is kept when "<lib_no>-<v>.seg" is a library's version. */
static int
doctor_copy_keep(const char *name, void *arg)
{
	char	 seg[64];
	size_t	 n = strlen(name);

	if (n <= 3 || n + 1 >= sizeof(seg))
		return 1;
	snprintf(seg, sizeof(seg), "%.*s.seg", (int)(n - 3), name);
	return doctor_name_keep(seg, arg);
}

/*
 * With PostgreSQL, this node's local copies of libraries (store/localcopy.h,
 * DATA_DIR/copies): those of versions no library serves now (a deleted library's; a query
 * process removes a library's older ones when it builds the new one) are removed, and the
 * rest counted.
 */
static void
doctor_copies(FILE *out, int *bad, const char *dir, struct doctor_names *d)
{
	char		*cdir;
	long long	 bytes = 0;
	size_t		 files = 0;
	int		 removed;

	if ((cdir = util_path_join(dir, "copies")) == NULL)
		return;
	/* no budget here (LLONG_MAX): the count of what is left */
	if ((removed = segment_remove_unused_as(cdir, ".db", doctor_copy_keep, d)) == -1 ||
	    segment_bound_folder(cdir, ".db", LLONG_MAX, NULL, &files, &bytes) == -1) {
		doctor_line(out, bad, 0, "local copies: %s: %s", cdir, strerror(errno));
		free(cdir);
		return;
	}
	doctor_line(out, bad, 1, "local copies: %zu librar%s in %s (%.1f MB, built by the "
	    "copier ahead and for the questions that ask); %d of versions no library serves "
	    "removed", files, files == 1 ? "y" : "ies", cdir, (double)bytes / 1048576.0, removed);
	free(cdir);
}

/* 0 when the shell command cmd exits 0 (its output discarded). */
static int
doctor_cmd_ok(const char *cmd)
{
	FILE	*p;
	char	 buf[512];

	if ((p = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(buf, sizeof(buf), p) != NULL)
		continue;
	return pclose(p) == 0 ? 0 : -1;
}

/* The nginx site, the cron entry, the units, and whether systemd runs them. */
static void
doctor_system(FILE *out, int *bad)
{
	if (access(DOCTOR_SITE, R_OK) != 0)
		doctor_line(out, bad, 0, "nginx: the site %s is not enabled: "
		    "dpkg-reconfigure ctxd", DOCTOR_SITE);
	else if (geteuid() != 0)
		/*
		 * nginx -t opens the error log and the pid file, which only root may: as the
		 * service user it fails on a working nginx. Not a failure, then.
		 */
		doctor_line(out, bad, 1, "nginx: site %s enabled (run ctxd-admin doctor as root "
		    "to test the configuration with nginx -t)", DOCTOR_SITE);
	else if (doctor_cmd_ok("nginx -t 2>&1") == -1)
		doctor_line(out, bad, 0, "nginx: nginx -t fails: run it and fix what it "
		    "names, then systemctl reload nginx");
	else
		doctor_line(out, bad, 1, "nginx: site %s enabled, nginx -t passes",
		    DOCTOR_SITE);
	doctor_line(out, bad, access(DOCTOR_CRON, R_OK) == 0, "cron: %s%s", DOCTOR_CRON,
	    access(DOCTOR_CRON, R_OK) == 0 ? "" : " is missing: reinstall the package "
	    "(apt install --reinstall ctxd)");
	if (access(DOCTOR_UNITS "/ctxd.target", R_OK) != 0 ||
	    access(DOCTOR_UNITS "/ctxd@.service", R_OK) != 0 ||
	    access(DOCTOR_UNITS "/ctxd@.socket", R_OK) != 0)
		doctor_line(out, bad, 0, "units: ctxd.target, ctxd@.service or ctxd@.socket "
		    "is missing in %s: apt install --reinstall ctxd", DOCTOR_UNITS);
	else if (access("/run/systemd/system", F_OK) != 0)
		doctor_line(out, bad, 1, "units: installed (systemd is not running here)");
	else if (doctor_cmd_ok("systemctl is-active --quiet ctxd.target "
	    "ctxd@query.service ctxd@web.service ctxd@mcp.service ctxd@hook.service") == -1)
		doctor_line(out, bad, 0, "units: not all active: systemctl status "
		    "'ctxd@*' says why; then systemctl restart ctxd.target");
	else
		doctor_line(out, bad, 1, "units: ctxd.target and the four responders active");
}

/* The same disk check as GET /api/health (health_disk), so that both agree. */
static void
doctor_disk(FILE *out, int *bad, const char *dir)
{
	long long	 avail, total;
	int		 ok;

	ok = health_disk(dir, &avail, &total);
	if (avail == -1) {
		doctor_line(out, bad, 0, "disk: cannot stat %s: %s", dir, strerror(errno));
		return;
	}
	doctor_line(out, bad, ok, "disk: %lld MB free of %lld MB under %s%s", avail >> 20,
	    total >> 20, dir, ok ? "" : ": free space (at least 100 MB), or move DATA_DIR");
}

/* A real call to each configured AI provider (ctxd-admin provider test), when any is. */
static void
doctor_provider(FILE *out, int *bad, const char *dir, struct db *db)
{
	struct provider_cfg	 llm, embed;
	struct provcheck	 c;
	int			 rc;

	memset(&llm, 0, sizeof(llm));
	memset(&embed, 0, sizeof(embed));
	if (db == NULL || aiconfig_load(db, dir, &llm, &embed) == -1) {
		doctor_line(out, bad, 0, "providers: the settings cannot be read (see above)");
		goto out;
	}
	if (llm.vendor == NULL && embed.vendor == NULL) {
		doctor_line(out, bad, 1, "providers: none configured (lexical retrieval)");
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.timeout_ms = 10000;
	rc = provcheck_run(db, dir, &c);
	doctor_line(out, bad, rc == 0, "providers: %s", rc == 0 ? "reachable, keys accepted" :
	    "a call failed: ctxd-admin provider test says which and why");
out:
	provider_cfg_release(&llm);
	provider_cfg_release(&embed);
}

/* The file of the service's settings: $CTXD_DEFAULTS or /etc/default/ctxd. */
static const char *
doctor_defaults(void)
{
	const char	*d = getenv("CTXD_DEFAULTS");

	return d != NULL && *d != '\0' ? d : DOCTOR_DEFAULTS;
}

const char *
doctor_data_dir(void)
{
	static char	 dir[4096];
	const char	*env = getenv("DATA_DIR");
	char		*v;

	if (env != NULL && *env != '\0')
		return env;
	if ((v = doctor_defaults_get(doctor_defaults(), "DATA_DIR")) != NULL && *v != '\0' &&
	    strlen(v) < sizeof(dir)) {
		memcpy(dir, v, strlen(v) + 1);
		free(v);
		return dir;
	}
	free(v);
	return util_data_dir();
}

void
doctor_database_url(void)
{
	char	*v;

	if (getenv("DATA_DIR") != NULL || getenv("DATABASE_URL") != NULL)
		return;
	if ((v = doctor_defaults_get(doctor_defaults(), "DATABASE_URL")) != NULL && *v != '\0' &&
	    setenv("DATABASE_URL", v, 0) == 0)
		doctor_url_file = doctor_defaults();
	free(v);
}

int
doctor_run(const char *dir, FILE *out)
{
	const char	*defaults = doctor_defaults();
	struct db	*db, *schema;
	char		 why[512];
	int		 bad = 0;

	/* one connection (or none, and why) for every check of the database */
	db = store_inspect_connect(dir, why, sizeof(why));
	doctor_license(out, &bad, defaults);
	doctor_files(out, &bad, dir);
	if (db_url() != NULL)
		doctor_connection(out, &bad, db, why);
	/* no ctxd schema there: its tables cannot be read (doctor_schema has said why) */
	schema = doctor_schema(out, &bad, dir, db) > 0 ? db : NULL;
	doctor_space(out, &bad, db);
	doctor_segments(out, &bad, dir, schema);
	doctor_system(out, &bad);
	doctor_disk(out, &bad, dir);
	doctor_provider(out, &bad, dir, schema);
	db_close(db);
	fprintf(out, "%d check%s to fix\n", bad, bad == 1 ? "" : "s");
	return bad == 0 ? 0 : 1;
}
