/*
 * cron.h: the GitOps sync schedule (setting gitops.schedule): a preset (hourly, every 6
 * hours, daily, weekly), a five-field cron expression (minute hour day-of-month month
 * day-of-week; each field '*', a number, a range a-b, a step *\/n or a-b\/n, or a comma
 * list of those; day-of-week 0-7, 0 and 7 Sunday; when both day fields are restricted a
 * day matching either runs, as in cron(8)), or "manual" (Manual only: never).
 */
#ifndef CRON_H
#define CRON_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct tm;

struct cron {
	uint64_t	 minute;	/* bit n: minute n (0-59) */
	uint32_t	 hour;		/* 0-23 */
	uint32_t	 mday;		/* 1-31 */
	uint16_t	 month;		/* 1-12 */
	uint8_t		 wday;		/* 0-6, Sunday 0 */
	int		 mday_any, wday_any;	/* the field was '*' */
	int		 manual;	/* "manual" / "Manual only": never due */
};

/* Parses a schedule (preset, cron expression or manual). 0, or -1 with err. */
int	 cron_parse(const char *spec, struct cron *out, char *err, size_t errsz);
/* A settings check (lib/store/settings.c): 0 when spec parses, else -1 with err. */
int	 cron_check(const char *spec, char *err, size_t errsz);
/* 1 when the minute holding local time tm matches c, else 0. */
int	 cron_match(const struct cron *c, const struct tm *tm);
/*
 * The latest minute in (after, now] that c matches, in the local time zone (TZ): 1 with
 * *slot (its start, seconds since the epoch), 0 when none. Looks back at most
 * CRON_LOOKBACK_MIN minutes from now.
 */
#define CRON_LOOKBACK_MIN	(366L * 24 * 60)
int	 cron_due(const struct cron *c, time_t after, time_t now, time_t *slot);

#endif /* CRON_H */
