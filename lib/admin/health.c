/* health.c: the health and readiness probes (see health.h). */
#include "config.h"

#include <sys/statvfs.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>

#include "admin/health.h"
#include "base/buf.h"
#include "base/license.h"
#include "base/log.h"
#include "base/util.h"
#include "store/db.h"
#include "store/inspect.h"


void
health_probe(const char *datadir, struct health_probe *p)
{
	struct db	*db;

	memset(p, 0, sizeof(*p));
	p->schema = db_schema_version();
	if (db_open(datadir, DB_READONLY, &db) == -1)
		return;
	p->ok = store_inspect_counts(db, &p->queued, &p->running, &p->libraries) == 0;
	db_close(db);
}

int
health_disk(const char *datadir, long long *freeb, long long *total)
{
	struct statvfs	 vfs;

	*freeb = *total = -1;
	if (statvfs(datadir, &vfs) == -1)
		return 0;
	*freeb = (long long)vfs.f_bavail * (long long)vfs.f_frsize;
	*total = (long long)vfs.f_blocks * (long long)vfs.f_frsize;
	return *freeb >= HEALTH_DISK_MIN;
}

json_object *
health_license_json(int full, int *ok)
{
	struct license		 lic;
	enum license_status	 st;
	json_object		*o = json_object_new_object();
	char			 date[16], *key;
	struct tm		 tm;

	key = license_key_load(NULL);
	st = license_verify_any(key, license_now(), &lic);
	free(key);
	*ok = st == LICENSE_OK;
	json_object_object_add(o, "status",
	    json_object_new_string(license_status_str(st)));
	json_object_object_add(o, "development_build",
	    json_object_new_boolean(license_dev_build()));
	if (st == LICENSE_MISSING || st == LICENSE_MALFORMED)
		return o;
	json_object_object_add(o, "plan", json_object_new_string(lic.plan));
	if (gmtime_r(&lic.expires, &tm) != NULL &&
	    strftime(date, sizeof(date), "%Y-%m-%d", &tm) > 0)
		json_object_object_add(o, "expires", json_object_new_string(date));
	if (full) {
		json_object_object_add(o, "licensee",
		    json_object_new_string(lic.licensee));
		if (gmtime_r(&lic.issued, &tm) != NULL &&
		    strftime(date, sizeof(date), "%Y-%m-%d", &tm) > 0)
			json_object_object_add(o, "issued",
			    json_object_new_string(date));
	}
	return o;
}

/* {name: {k1: v1, ...}} helper: a new object added to o under name. */
static json_object *
health_part(json_object *o, const char *name)
{
	json_object	*d = json_object_new_object();

	json_object_object_add(o, name, d);
	return d;
}

json_object *
health_json(const char *datadir, int *healthy)
{
	struct health_probe p;
	json_object	*o = json_object_new_object(), *d;
	struct buf	 why;
	long long	 freeb, total;
	int		 lic_ok, disk_ok;

	buf_init(&why);
	health_probe(datadir, &p);
	disk_ok = health_disk(datadir, &freeb, &total);
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "license", health_license_json(0, &lic_ok));
	d = health_part(o, "database");
	json_object_object_add(d, "ok", json_object_new_boolean(p.ok));
	json_object_object_add(d, "schemaVersion", json_object_new_int(p.schema));
	d = health_part(o, "disk");
	json_object_object_add(d, "ok", json_object_new_boolean(disk_ok));
	json_object_object_add(d, "freeBytes", json_object_new_int64(freeb));
	json_object_object_add(d, "totalBytes", json_object_new_int64(total));
	d = health_part(o, "queue");
	json_object_object_add(d, "queued", json_object_new_int64(p.queued));
	json_object_object_add(d, "running", json_object_new_int64(p.running));
	json_object_object_add(o, "libraries", json_object_new_int64(p.libraries));
	if (!lic_ok)
		buf_adds(&why, "the license key is not valid; ");
	if (!p.ok)
		buf_adds(&why, "the database cannot be opened or its schema is not "
		    "current; ");
	if (!disk_ok)
		buf_adds(&why, "the data folder has less than 100 MiB free; ");
	*healthy = lic_ok && p.ok && disk_ok;
	json_object_object_add(o, "status", json_object_new_string(*healthy ? "ok" :
	    "unhealthy"));
	if (!*healthy && why.len > 2) {
		why.p[why.len - 2] = '\0';
		json_object_object_add(o, "error", json_object_new_string(why.p));
	}
	buf_release(&why);
	return o;
}

json_object *
health_brief_json(int healthy)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "status", json_object_new_string(healthy ? "ok" :
	    "unhealthy"));
	if (!healthy)
		json_object_object_add(o, "error", json_object_new_string("the service "
		    "is not healthy; an admin's GET /api/health (the Status page) names "
		    "the problem"));
	return o;
}
