/* bundle.c: the support bundle (see bundle.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>
#include <json.h>

#include "admin/bundle.h"
#include "admin/health.h"
#include "admin/segments.h"
#include "base/buf.h"
#include "base/log.h"
#include "search/catalog.h"
#include "store/db.h"
#include "store/settings.h"

#define BUNDLE_JOBS	50	/* jobs in the bundle */
#define BUNDLE_LINES	200	/* log lines per job there */

static la_ssize_t
bundle_write(struct archive *a, void *ctx, const void *p, size_t n)
{
	(void)a;
	return buf_add(ctx, p, n) == 0 ? (la_ssize_t)n : -1;
}

/* Adds the file dir/name holding JSON object o (consumed), pretty-printed. */
static int
bundle_json(struct archive *a, const char *dir, const char *name, json_object *o,
    time_t now)
{
	struct archive_entry *e;
	const char	*text;
	char		 path[256];
	size_t		 len;
	int		 rc = -1;

	if (o == NULL || (e = archive_entry_new()) == NULL) {
		json_object_put(o);
		return -1;
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len + 1);	/* + the final newline */
	archive_entry_set_mtime(e, now, 0);
	if (archive_write_header(a, e) == ARCHIVE_OK &&
	    archive_write_data(a, text, len) == (la_ssize_t)len &&
	    archive_write_data(a, "\n", 1) == 1)
		rc = 0;
	else
		log_err("%s: %s", __func__, archive_error_string(a));
	archive_entry_free(e);
	json_object_put(o);
	return rc;
}

/* version.json: what runs. */
static json_object *
bundle_version(const char *stamp)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "schemaVersion",
	    json_object_new_int(db_schema_version()));
	json_object_object_add(o, "sqlite", json_object_new_string(db_engine_version()));
	json_object_object_add(o, "libarchive",
	    json_object_new_string(archive_version_string()));
	json_object_object_add(o, "generatedAt", json_object_new_string(stamp));
	return o;
}

int
bundle_build(struct db *db, const char *datadir, struct buf *out, char *name,
    size_t namesz)
{
	struct archive	*a;
	time_t		 now = time(NULL);
	struct tm	 tm;
	char		 stamp[32];
	int		 healthy, lic_ok, rc = -1;

	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) == 0)
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	snprintf(name, namesz, "ctxd-support-%s", stamp);
	if ((a = archive_write_new()) == NULL) {
		log_err("%s: out of memory", __func__);
		return -1;
	}
	if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open(a, out, NULL, bundle_write, NULL) != ARCHIVE_OK) {
		log_err("%s: %s", __func__, archive_error_string(a));
		goto out;
	}
	if (bundle_json(a, name, "version.json", bundle_version(stamp), now) == -1 ||
	    bundle_json(a, name, "license.json", health_license_json(1, &lic_ok),
	    now) == -1 ||
	    bundle_json(a, name, "health.json", health_json(datadir, &healthy),
	    now) == -1 ||
	    bundle_json(a, name, "settings.json", settings_json(db, datadir, NULL),
	    now) == -1 ||
	    bundle_json(a, name, "libraries.json", catalog_bundle_libraries(db),
	    now) == -1 ||
	    bundle_json(a, name, "segments.json", segments_json(db, datadir), now) == -1 ||
	    bundle_json(a, name, "jobs.json", catalog_bundle_jobs(db, BUNDLE_JOBS,
	    BUNDLE_LINES), now) == -1)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK) {
		log_err("%s: %s", __func__, archive_error_string(a));
		goto out;
	}
	rc = 0;
out:
	archive_write_free(a);
	return rc;
}
