/*
 * test-cron.c: the GitOps schedule (lib/base/cron.c): presets, five-field cron expressions
 * (lists, ranges, steps, both day fields), refusals, and cron_due: a due slot, none, and
 * several missed slots giving one run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cron.h"
#include "tap.h"

/* Local time y-m-d h:m as time_t (TZ is UTC in this test). */
static time_t
at(int y, int mo, int d, int h, int mi)
{
	struct tm	 tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* 1 when spec matches local time t. */
static int
matches(const char *spec, time_t t)
{
	struct cron	 c;
	struct tm	 tm;
	char		 err[256];

	if (cron_parse(spec, &c, err, sizeof(err)) == -1 || localtime_r(&t, &tm) == NULL)
		return -1;
	return cron_match(&c, &tm);
}

static void
test_parse(void)
{
	static const char *const good[] = { "hourly", "every 6 hours", "Daily", "weekly",
	    "manual", "Manual only", "* * * * *", "0 */6 * * *", "5,35 9-17 * * 1-5",
	    "0 0 1 1 *", "0 0 * * 7", "10-50/20 * * * *", " 0  3 * * 0 " };
	static const struct {
		const char	*spec, *want;
	} bad[] = { { "", "five cron fields" }, { "61 * * * *", "minute" },
	    { "* 24 * * *", "hour" }, { "* * 0 * *", "day-of-month" },
	    { "* * * 13 *", "month" }, { "* * * * 8", "day-of-week" },
	    { "* * * *", "five cron fields" }, { "* * * * * *", "five fields" },
	    { "*/0 * * * *", "minute" }, { "5-1 * * * *", "minute" },
	    { "a * * * *", "minute" }, { "1,,2 * * * *", "minute" },
	    { "fortnightly", "minute" } };
	struct cron	 c;
	char		 err[256];
	size_t		 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(cron_parse(good[i], &c, err, sizeof(err)) == 0, "parses '%s'", good[i]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ok(cron_parse(bad[i].spec, &c, err, sizeof(err)) == -1 &&
		    strstr(err, bad[i].want) != NULL, "refuses '%s': %s", bad[i].spec, err);
	}
	ok(cron_check("hourly", err, sizeof(err)) == 0 &&
	    cron_check("0 0 0 0 0", err, sizeof(err)) == -1, "cron_check");
}

static void
test_match(void)
{
	/* 2026-11-26 is a Thursday (wday 4). */
	ok(matches("hourly", at(2026, 11, 26, 14, 0)) == 1, "hourly at :00");
	ok(matches("hourly", at(2026, 11, 26, 14, 1)) == 0, "hourly not at :01");
	ok(matches("every 6 hours", at(2026, 11, 26, 18, 0)) == 1, "every 6 hours at 18:00");
	ok(matches("every 6 hours", at(2026, 11, 26, 14, 0)) == 0, "not at 14:00");
	ok(matches("daily", at(2026, 11, 26, 0, 0)) == 1, "daily at midnight");
	ok(matches("weekly", at(2026, 11, 29, 0, 0)) == 1, "weekly on Sunday midnight");
	ok(matches("weekly", at(2026, 11, 26, 0, 0)) == 0, "weekly not on Thursday");
	ok(matches("0 0 * * 7", at(2026, 11, 29, 0, 0)) == 1, "day-of-week 7 is Sunday");
	ok(matches("5,35 9-17 * * 1-5", at(2026, 11, 26, 9, 35)) == 1, "a list and ranges");
	ok(matches("5,35 9-17 * * 1-5", at(2026, 11, 28, 9, 35)) == 0, "not on Saturday");
	ok(matches("10-50/20 * * * *", at(2026, 11, 26, 9, 30)) == 1, "a range with a step");
	ok(matches("10-50/20 * * * *", at(2026, 11, 26, 9, 40)) == 0, "off the step");
	/* Both day fields restricted: either matches (cron(8)). */
	ok(matches("0 0 1 * 4", at(2026, 11, 26, 0, 0)) == 1, "day-of-week alone matches");
	ok(matches("0 0 1 * 4", at(2026, 12, 1, 0, 0)) == 1, "day-of-month alone matches");
	ok(matches("0 0 1 * 4", at(2026, 11, 27, 0, 0)) == 0, "neither: no match");
	/* One restricted, the other '*': the restricted one decides. */
	ok(matches("0 0 1 * *", at(2026, 11, 26, 0, 0)) == 0, "day-of-month 1 only");
	ok(matches("manual", at(2026, 11, 26, 0, 0)) == 0, "manual never matches");
}

static void
test_due(void)
{
	struct cron	 c;
	time_t		 slot = 0;
	char		 err[256];

	cron_parse("hourly", &c, err, sizeof(err));
	ok(cron_due(&c, at(2026, 11, 26, 13, 59), at(2026, 11, 26, 14, 0) + 30, &slot) == 1 &&
	    slot == at(2026, 11, 26, 14, 0), "a slot since the last evaluation is due");
	ok(cron_due(&c, at(2026, 11, 26, 14, 0), at(2026, 11, 26, 14, 1), &slot) == 0,
	    "the slot already evaluated is not due again");
	ok(cron_due(&c, at(2026, 11, 26, 14, 1), at(2026, 11, 26, 14, 59), &slot) == 0,
	    "no slot in between: not due");
	slot = 0;
	ok(cron_due(&c, at(2026, 11, 26, 9, 30), at(2026, 11, 26, 14, 10), &slot) == 1 &&
	    slot == at(2026, 11, 26, 14, 0), "five missed slots: one run, for the latest");
	cron_parse("manual", &c, err, sizeof(err));
	ok(cron_due(&c, 0, at(2026, 11, 26, 14, 0), &slot) == 0, "manual is never due");
	cron_parse("0 0 29 2 *", &c, err, sizeof(err));
	ok(cron_due(&c, 0, at(2026, 11, 26, 14, 0), &slot) == 0,
	    "the look-back is bounded (no 29 February within a year)");
}

int
main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	test_parse();
	test_match();
	test_due();
	return tap_done();
}
