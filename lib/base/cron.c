/* cron.c: the GitOps schedule: presets and five-field cron expressions (cron.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/cron.h"
#include "base/util.h"

static const struct {
	const char	*name, *expr;
} cron_presets[] = {
	{ "hourly", "0 * * * *" },
	{ "every 6 hours", "0 */6 * * *" },
	{ "daily", "0 0 * * *" },
	{ "weekly", "0 0 * * 0" },
};

/* A number of a field in [min, max] from s up to end. */
static int
cron_number(const char *s, const char *end, long min, long max, long *out)
{
	char	 tmp[8];
	size_t	 n = (size_t)(end - s);

	if (n == 0 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return util_parse_long(tmp, min, max, out);
}

/*
 * One field (s, up to end) into *bits (bit n: value n). *any is set when the field is a
 * plain '*'. 0, or -1 with err naming the field.
 */
static int
cron_field(const char *s, const char *end, const char *name, long min, long max,
    uint64_t *bits, int *any, char *err, size_t errsz)
{
	const char	*p, *comma, *dash, *slash, *rend;
	long		 lo, hi, step, v;

	*bits = 0;
	*any = (end - s == 1 && *s == '*');
	for (p = s; p < end; p = comma + 1) {
		if ((comma = memchr(p, ',', (size_t)(end - p))) == NULL)
			comma = end;
		slash = memchr(p, '/', (size_t)(comma - p));
		rend = slash != NULL ? slash : comma;
		step = 1;
		if (slash != NULL && cron_number(slash + 1, comma, 1, max, &step) == -1)
			goto bad;
		if (rend - p == 1 && *p == '*') {
			lo = min;
			hi = max;
		} else if ((dash = memchr(p, '-', (size_t)(rend - p))) != NULL) {
			if (cron_number(p, dash, min, max, &lo) == -1 ||
			    cron_number(dash + 1, rend, min, max, &hi) == -1 || hi < lo)
				goto bad;
		} else {
			if (cron_number(p, rend, min, max, &lo) == -1)
				goto bad;
			hi = slash != NULL ? max : lo;
		}
		for (v = lo; v <= hi; v += step)
			*bits |= (uint64_t)1 << v;
		if (comma == end)
			break;
	}
	return 0;
bad:
	snprintf(err, errsz, "the %s field '%.*s' is not valid (allowed %ld-%ld, '*', "
	    "ranges a-b, steps /n, lists)", name, (int)(end - s), s, min, max);
	return -1;
}

/* Parses the five fields of expr into out. */
static int
cron_expr(const char *expr, struct cron *out, char *err, size_t errsz)
{
	static const struct {
		const char	*name;
		long		 min, max;
	} f[5] = { { "minute", 0, 59 }, { "hour", 0, 23 }, { "day-of-month", 1, 31 },
	    { "month", 1, 12 }, { "day-of-week", 0, 7 } };
	uint64_t	 bits[5];
	const char	*p = expr, *e;
	int		 any[5], i;

	for (i = 0; i < 5; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		for (e = p; *e != '\0' && *e != ' ' && *e != '\t'; e++)
			;
		if (e == p) {
			snprintf(err, errsz, "a schedule is a preset (hourly, every 6 "
			    "hours, daily, weekly), manual, or five cron fields");
			return -1;
		}
		if (cron_field(p, e, f[i].name, f[i].min, f[i].max, &bits[i], &any[i],
		    err, errsz) == -1)
			return -1;
		p = e;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '\0') {
		snprintf(err, errsz, "a cron expression has five fields");
		return -1;
	}
	out->minute = bits[0];
	out->hour = (uint32_t)bits[1];
	out->mday = (uint32_t)(bits[2] >> 1);
	out->month = (uint16_t)(bits[3] >> 1);
	out->wday = (uint8_t)((bits[4] | (bits[4] >> 7)) & 0x7f);	/* 7 is Sunday */
	out->mday_any = any[2];
	out->wday_any = any[4];
	return 0;
}

int
cron_parse(const char *spec, struct cron *out, char *err, size_t errsz)
{
	size_t	 i;

	memset(out, 0, sizeof(*out));
	if (strcasecmp(spec, "manual") == 0 || strcasecmp(spec, "manual only") == 0) {
		out->manual = 1;
		return 0;
	}
	for (i = 0; i < sizeof(cron_presets) / sizeof(cron_presets[0]); i++)
		if (strcasecmp(spec, cron_presets[i].name) == 0)
			return cron_expr(cron_presets[i].expr, out, err, errsz);
	return cron_expr(spec, out, err, errsz);
}

int
cron_check(const char *spec, char *err, size_t errsz)
{
	struct cron	 c;

	return cron_parse(spec, &c, err, errsz);
}

int
cron_match(const struct cron *c, const struct tm *tm)
{
	int	 dom, dow;

	if (c->manual || !(c->minute >> tm->tm_min & 1) || !(c->hour >> tm->tm_hour & 1) ||
	    !(c->month >> tm->tm_mon & 1))
		return 0;
	dom = c->mday >> (tm->tm_mday - 1) & 1;
	dow = c->wday >> tm->tm_wday & 1;
	if (c->mday_any || c->wday_any)
		return dom && dow;
	return dom || dow;
}

int
cron_due(const struct cron *c, time_t after, time_t now, time_t *slot)
{
	struct tm	 tm;
	time_t		 t, stop;

	if (c->manual)
		return 0;
	t = now - now % 60;
	stop = now - CRON_LOOKBACK_MIN * 60;
	if (after > stop)
		stop = after;
	for (; t > stop; t -= 60) {
		if (localtime_r(&t, &tm) == NULL)
			return 0;
		if (cron_match(c, &tm)) {
			*slot = t;
			return 1;
		}
	}
	return 0;
}
