/*
 * doctor.c: ctxd-admin doctor, the checks of an installed ctxd (the Debian package's
 * layout, ctxd(7)): one line each, "ok   what" or "FIX  what is wrong: what to do".
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
#include "admin/segments.h"
#include "search/segment.h"

#define DOCTOR_DEFAULTS		"/etc/default/ctxd"
#define DOCTOR_SITE		"/etc/nginx/sites-enabled/ctxd"
#define DOCTOR_CRON		"/etc/cron.d/ctxd"
#define DOCTOR_UNITS		"/lib/systemd/system"
#define DOCTOR_EXPIRY_WARN	(14 * 86400)	/* a license that ends sooner: FIX */

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

/*
 * The owner (the service's user, $CTXD_USER or ctxd, when it exists, else DATA_DIR's) and
 * the modes of DATA_DIR and secret.key: nothing for the group to write, nothing for others.
 */
static void
doctor_files(FILE *out, int *bad, const char *dir)
{
	const char	*user = getenv("CTXD_USER") != NULL && *getenv("CTXD_USER") != '\0' ?
			    getenv("CTXD_USER") : "ctxd";
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

static void
doctor_schema(FILE *out, int *bad, const char *dir)
{
	struct db	*db = store_inspect_open(dir);
	char		 release[64], day[32];
	int		 v = -1, from;

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
	else if (v == -1)
		doctor_line(out, bad, 0, "database %s/ctxd.db: cannot be read: run "
		    "ctxd-admin init as the user ctxd", dir);
	else
		doctor_line(out, bad, 0, "database: schema version %d, this ctxd's is %d: %s",
		    v, db_schema_version(), v < db_schema_version() ?
		    "run ctxd-admin init as the user ctxd" : "install the newer ctxd again");
	db_close(db);
}

/*
 * The database's size and its free pages (rows deleted: libraries, versions, re-indexed
 * files): information, never a fix; past a tenth of the file and 16 MB it names the command
 * that gives them back to the disk.
 */
static void
doctor_space(FILE *out, int *bad, const char *dir)
{
	struct db	*db = store_inspect_open(dir);
	long long	 size, freeb;

	if (db == NULL || db_space(db, &size, &freeb) == -1) {
		db_close(db);
		return;		/* doctor_schema has said why */
	}
	db_close(db);
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

/* The segments of the libraries, counted for doctor_segments. */
struct doctor_seg {
	FILE		*out;
	int		*bad;
	size_t		 present, missing, damaged;
	long long	 bytes;
	size_t		 withvec, vectors;	/* segments with vector sections, their rows */
};

static int
doctor_seg_one(const struct segments_row *r, void *arg)
{
	struct doctor_seg *c = arg;

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
		c->missing++;
		break;
	case SEGMENTS_NO_INDEX:
		break;
	}
	return 0;
}

/*
 * The index segments (docs/DESIGN.md, "Index segments"): those no library version names
 * are removed (and temporary files of dead writers); each one in use is checked as a query
 * process checks it before use. A damaged or missing one is reported (until it is
 * written, query processes build that library's index from the database, each its own
 * copy): `ctxd-admin index rebuild` writes it, as does the library's next index run.
 */
static void
doctor_segments(FILE *out, int *bad, const char *dir)
{
	struct db	*db = store_inspect_open(dir);
	struct doctor_names d = { NULL, 0, 0 };
	struct doctor_seg c = { out, bad, 0, 0, 0, 0, 0, 0 };
	char		*sdir = NULL;
	size_t		 i;
	int		 removed;

	if (db == NULL)
		return;		/* doctor_schema has said why */
	if (store_library_index_versions(db, doctor_name_add, &d) == -1 ||
	    (sdir = util_path_join(dir, "segments")) == NULL) {
		doctor_line(out, bad, 0, "segments: the libraries could not be read");
		goto out;
	}
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
	    c.present + c.missing + c.damaged, (double)c.bytes / 1048576.0, removed,
	    removed == 1 ? "" : "s", c.withvec, c.vectors);
out:
	for (i = 0; i < d.n; i++)
		free(d.v[i]);
	free(d.v);
	free(sdir);
	db_close(db);
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
doctor_provider(FILE *out, int *bad, const char *dir)
{
	struct provider_cfg	 llm, embed;
	struct db			*db = NULL;
	struct provcheck	 c;
	int			 rc;

	memset(&llm, 0, sizeof(llm));
	memset(&embed, 0, sizeof(embed));
	if ((db = store_inspect_open(dir)) == NULL || aiconfig_load(db, dir, &llm, &embed) == -1) {
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
	db_close(db);
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
	if ((v = doctor_defaults_get(doctor_defaults(), "DATABASE_URL")) != NULL && *v != '\0')
		setenv("DATABASE_URL", v, 0);
	free(v);
}

int
doctor_run(const char *dir, FILE *out)
{
	const char	*defaults = doctor_defaults();
	int		 bad = 0;

	doctor_license(out, &bad, defaults);
	doctor_files(out, &bad, dir);
	doctor_schema(out, &bad, dir);
	doctor_space(out, &bad, dir);
	doctor_segments(out, &bad, dir);
	doctor_system(out, &bad);
	doctor_disk(out, &bad, dir);
	doctor_provider(out, &bad, dir);
	fprintf(out, "%d check%s to fix\n", bad, bad == 1 ? "" : "s");
	return bad == 0 ? 0 : 1;
}
