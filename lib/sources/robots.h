/*
 * robots.h: robots.txt (RFC 9309) for the website crawler (lib/sources/website.c). The
 * group of our agent is chosen (its user-agent lines compared with our product token,
 * case-insensitively; several matching groups are merged; else the "*" groups; else none),
 * its Allow and Disallow rules kept with their '*' and '$' patterns, its Crawl-delay read,
 * and the Sitemap lines of the whole file collected. A path is allowed when the longest
 * matching rule allows it (an Allow wins a tie) or no rule matches.
 *
 * Bounded: at most ROBOTS_MAX_BYTES of the file are read, ROBOTS_MAX_RULES rules and
 * ROBOTS_MAX_SITEMAPS sitemaps kept; matching a path is linear in the path and the rules.
 */
#ifndef ROBOTS_H
#define ROBOTS_H

#include <stddef.h>

#define ROBOTS_MAX_BYTES	(512 * 1024)
#define ROBOTS_MAX_RULES	1000
#define ROBOTS_MAX_SITEMAPS	16
#define ROBOTS_MAX_DELAY_MS	60000L

struct robots_rule {
	char	*pat;
	size_t	 len;
	int	 allow;
};

struct robots {
	struct robots_rule *rules;
	size_t		 n;
	long		 delay_ms;	/* the group's Crawl-delay, 0: none */
	char		*sitemaps[ROBOTS_MAX_SITEMAPS];
	size_t		 nsitemaps;
	int		 disallow_all;	/* set by the caller (an unreachable robots.txt) */
};

/* Parses txt for agent into *out (robots_release frees it). 0, or -1 out of memory. */
int	 robots_parse(const char *txt, size_t len, const char *agent, struct robots *out);
void	 robots_release(struct robots *);
/* 1 when path ("/a/b?q") may be fetched, else 0. */
int	 robots_allowed(const struct robots *, const char *path);
/*
 * 1 when pattern p (pl bytes; '*' any run of characters, '/' included) matches s: the
 * whole of s when whole is set, else a prefix of s, or the whole when p ends in '$'.
 */
int	 robots_match(const char *p, size_t pl, const char *s, int whole);

#endif /* ROBOTS_H */
