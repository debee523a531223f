/*
 * health.h: the health and readiness probes of the service (GET /api/health, GET
 * /api/ready, the support bundle): database, schema, disk, license and queue.
 */
#ifndef HEALTH_H
#define HEALTH_H

#include <json.h>

struct health_probe {
	int		 ok;		/* the database opens, its schema is current */
	int		 schema;	/* the schema version this build wants */
	long long	 queued, running, libraries;
};

/*
 * Opens the database of datadir afresh, read-only (not a responder's connection, so that a
 * broken or replaced file shows), checks its schema version and counts jobs and libraries.
 */
void	 health_probe(const char *datadir, struct health_probe *);
/*
 * The disk check that GET /api/health and ctxd-admin doctor share: 1 when the file system of
 * datadir has at least HEALTH_DISK_MIN free for the service, else 0; *freeb and *total
 * (bytes) are -1 when it cannot be read (then 0).
 */
#define HEALTH_DISK_MIN	(100LL * 1024 * 1024)
int	 health_disk(const char *datadir, long long *freeb, long long *total);
/* The license summary (never the key); full adds the licensee and the issue date. */
json_object *health_license_json(int full, int *ok);
/*
 * The health report {status, version, license, database, disk, queue, libraries[, error]};
 * *healthy when the license, the database and the disk of datadir are fine.
 */
json_object *health_json(const char *datadir, int *healthy);
/*
 * What anyone may know of it: {status} ("ok" or "unhealthy"), with on "unhealthy" an
 * error that says only that an admin sees why.
 */
json_object *health_brief_json(int healthy);

#endif
