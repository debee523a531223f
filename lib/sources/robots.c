/* robots.c: robots.txt for the crawler (robots.h). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sources/robots.h"

/* The next '*' of p[i..pl), or pl. */
static size_t
robots_star(const char *p, size_t i, size_t pl)
{
	const char	*q = memchr(p + i, '*', pl - i);

	return q != NULL ? (size_t)(q - p) : pl;
}

int
robots_match(const char *p, size_t pl, const char *s, int whole)
{
	const char	*q;
	size_t		 sl = strlen(s), i, e, pos;
	int		 anchored = whole;

	if (!whole && pl > 0 && p[pl - 1] == '$') {
		anchored = 1;
		pl--;
	}
	/*
	 * The literal pieces between the '*'s, each at its leftmost place after the one
	 * before (leftmost is right when '*' is the only wildcard): linear in p and s. The
	 * first piece starts s; the last ends it when anchored.
	 */
	e = robots_star(p, 0, pl);
	if (e > sl || memcmp(p, s, e) != 0)
		return 0;
	if (e == pl)
		return anchored ? sl == pl : 1;
	pos = e;
	for (i = e + 1; i <= pl; i = e + 1) {
		e = robots_star(p, i, pl);
		if (e == pl && anchored)	/* the last piece ends s */
			return sl - pos >= e - i && memcmp(s + sl - (e - i), p + i, e - i) == 0;
		if (e > i) {
			if ((q = memmem(s + pos, sl - pos, p + i, e - i)) == NULL)
				return 0;
			pos = (size_t)(q - s) + (e - i);
		}
		if (e == pl)
			break;
	}
	return 1;
}

/* The state of the parse: which groups the current one belongs to. */
struct robots_parse {
	struct robots	*out;
	const char	*agent;
	int		 in_agents;	/* the previous line was a user-agent line */
	int		 mine, star;	/* the current group names our agent, or "*" */
	int		 have_mine;	/* some group named our agent */
	struct robots_rule *star_rules;	/* the "*" groups' rules, used when no group is ours */
	size_t		 nstar, nmine;
	long		 star_delay;
};

/* 1 when the user-agent value names agent: its product token, case-insensitively. */
static int
robots_agent_is(const char *v, size_t vl, const char *agent)
{
	size_t	 n = 0;

	while (n < vl && (isalnum((unsigned char)v[n]) || v[n] == '-' || v[n] == '_'))
		n++;
	return n > 0 && n == strlen(agent) && strncasecmp(v, agent, n) == 0;
}

static int
robots_add_rule(struct robots_rule **v, size_t *n, const char *pat, size_t len, int allow)
{
	struct robots_rule *r;

	if (*n >= ROBOTS_MAX_RULES)
		return 0;
	if ((r = reallocarray(*v, *n + 1, sizeof(**v))) == NULL)
		return -1;
	*v = r;
	if ((r[*n].pat = strndup(pat, len)) == NULL)
		return -1;
	r[*n].len = strlen(r[*n].pat);	/* a NUL byte ends the pattern */
	r[*n].allow = allow;
	(*n)++;
	return 0;
}

/* Crawl-delay in seconds (a whole or decimal number) as milliseconds, capped; -1 if not. */
static long
robots_delay(const char *v, size_t vl)
{
	long	 ms = 0, frac = 100;
	size_t	 i = 0;

	if (vl == 0)
		return -1;
	for (; i < vl && isdigit((unsigned char)v[i]); i++)
		if ((ms = ms * 10 + (v[i] - '0') * 1000) > ROBOTS_MAX_DELAY_MS)
			ms = ROBOTS_MAX_DELAY_MS;
	if (i < vl && v[i] == '.')
		for (i++; i < vl && isdigit((unsigned char)v[i]); i++, frac /= 10)
			ms += (v[i] - '0') * frac;
	if (i != vl)
		return -1;
	return ms > ROBOTS_MAX_DELAY_MS ? ROBOTS_MAX_DELAY_MS : ms;
}

/* One "key: value" line (comment and blanks removed). 0, or -1 out of memory. */
static int
robots_line(struct robots_parse *ps, const char *k, size_t kl, const char *v, size_t vl)
{
	struct robots	*o = ps->out;
	long		 d;
	int		 allow;

	if (kl == 10 && strncasecmp(k, "user-agent", kl) == 0) {
		if (!ps->in_agents)
			ps->mine = ps->star = 0;
		ps->in_agents = 1;
		if (vl == 1 && v[0] == '*')
			ps->star = 1;
		else if (robots_agent_is(v, vl, ps->agent))
			ps->mine = ps->have_mine = 1;
		return 0;
	}
	if (kl == 7 && strncasecmp(k, "sitemap", kl) == 0) {
		if (o->nsitemaps < ROBOTS_MAX_SITEMAPS && vl > 0 &&
		    (o->sitemaps[o->nsitemaps] = strndup(v, vl)) != NULL)
			o->nsitemaps++;
		return 0;
	}
	ps->in_agents = 0;
	if (kl == 11 && strncasecmp(k, "crawl-delay", kl) == 0) {
		if ((d = robots_delay(v, vl)) >= 0) {
			if (ps->mine)
				o->delay_ms = d;
			if (ps->star)
				ps->star_delay = d;
		}
		return 0;
	}
	if ((kl == 5 && strncasecmp(k, "allow", kl) == 0))
		allow = 1;
	else if (kl == 8 && strncasecmp(k, "disallow", kl) == 0)
		allow = 0;
	else
		return 0;
	if (vl == 0)		/* "Disallow:" with nothing: no rule */
		return 0;
	if (ps->mine && robots_add_rule(&o->rules, &ps->nmine, v, vl, allow) == -1)
		return -1;
	if (ps->star && robots_add_rule(&ps->star_rules, &ps->nstar, v, vl, allow) == -1)
		return -1;
	return 0;
}

/* Splits one line at ':' (comments and blanks trimmed) and hands it to robots_line. */
static int
robots_split(struct robots_parse *ps, const char *l, size_t n)
{
	const char	*c, *k, *v;
	size_t		 kl, vl;

	if ((c = memchr(l, '#', n)) != NULL)
		n = (size_t)(c - l);
	if ((c = memchr(l, ':', n)) == NULL)
		return 0;
	for (k = l; k < c && isspace((unsigned char)*k); k++)
		;
	for (kl = (size_t)(c - k); kl > 0 && isspace((unsigned char)k[kl - 1]); kl--)
		;
	for (v = c + 1; v < l + n && isspace((unsigned char)*v); v++)
		;
	for (vl = (size_t)(l + n - v); vl > 0 && isspace((unsigned char)v[vl - 1]); vl--)
		;
	return robots_line(ps, k, kl, v, vl);
}

int
robots_parse(const char *txt, size_t len, const char *agent, struct robots *out)
{
	struct robots_parse ps;
	const char	*p, *end, *nl;
	size_t		 i;
	int		 rc = -1;

	memset(out, 0, sizeof(*out));
	memset(&ps, 0, sizeof(ps));
	ps.out = out;
	ps.agent = agent;
	if (len > ROBOTS_MAX_BYTES)
		len = ROBOTS_MAX_BYTES;
	for (p = txt, end = txt + len; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		if (robots_split(&ps, p, (size_t)(nl - p)) == -1)
			goto out;
	}
	if (!ps.have_mine) {
		/* no group of ours: the "*" groups' rules */
		for (i = 0; i < ps.nmine; i++)
			free(out->rules[i].pat);
		free(out->rules);
		out->rules = ps.star_rules;
		out->n = ps.nstar;
		out->delay_ms = ps.star_delay;
		ps.star_rules = NULL;
		ps.nstar = 0;
	} else
		out->n = ps.nmine;
	rc = 0;
out:
	for (i = 0; i < ps.nstar; i++)
		free(ps.star_rules[i].pat);
	free(ps.star_rules);
	if (rc == -1) {
		out->n = ps.nmine;
		robots_release(out);
	}
	return rc;
}

void
robots_release(struct robots *r)
{
	size_t	 i;

	for (i = 0; i < r->n; i++)
		free(r->rules[i].pat);
	free(r->rules);
	for (i = 0; i < r->nsitemaps; i++)
		free(r->sitemaps[i]);
	memset(r, 0, sizeof(*r));
}

int
robots_allowed(const struct robots *r, const char *path)
{
	size_t	 i, best = 0;
	int	 allow = 1, found = 0;

	if (strcmp(path, "/robots.txt") == 0)
		return 1;
	if (r->disallow_all)
		return 0;
	for (i = 0; i < r->n; i++) {
		if (found && (r->rules[i].len < best || (r->rules[i].len == best &&
		    !r->rules[i].allow)))
			continue;
		if (!robots_match(r->rules[i].pat, r->rules[i].len, path, 0))
			continue;
		if (!found || r->rules[i].len > best || r->rules[i].allow)
			allow = r->rules[i].allow;
		best = r->rules[i].len;
		found = 1;
	}
	return allow;
}
