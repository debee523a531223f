/* sqltext.c: one statement's text for either engine (sqltext.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "store/sqltext.h"

#define SQLTEXT_MAX_PARAM	32767	/* SQLite's default and PostgreSQL's limit */

const char *
sqltext_pick(const char *sql, enum db_engine e)
{
	if (sql == NULL || sql[0] != '\001')
		return sql;
	sql++;
	return e == DB_ENGINE_SQLITE ? sql : sql + strlen(sql) + 1;
}

/* The end of the quoted run starting at p (quote q, doubled inside it to escape it). */
static const char *
sqltext_quoted(const char *p, char q)
{
	for (p++; *p != '\0';)
		if (*p++ == q) {
			if (*p != q)
				break;
			p++;
		}
	return p;
}

char *
sqltext_postgres(const char *sql, int *nparams)
{
	struct buf	 b;
	const char	*p = sqltext_pick(sql, DB_ENGINE_POSTGRES), *s, *e;
	long		 n, max = 0;
	int		 bad = 0;

	*nparams = 0;
	buf_init(&b);
	while (*p != '\0') {
		s = p;
		if (*p == '\'' || *p == '"')
			e = sqltext_quoted(p, *p);
		else if (p[0] == '-' && p[1] == '-')
			e = p + strcspn(p, "\n");
		else if (p[0] == '/' && p[1] == '*')
			e = (e = strstr(p + 2, "*/")) != NULL ? e + 2 : p + strlen(p);
		else if (*p != '?')
			e = p + 1;
		else
			e = NULL;
		if (e != NULL) {
			bad |= buf_add(&b, s, (size_t)(e - s));
			p = e;
		} else {
			p++;
			if (*p >= '0' && *p <= '9') {
				for (n = 0; *p >= '0' && *p <= '9' && n <= SQLTEXT_MAX_PARAM; p++)
					n = n * 10 + (*p - '0');
			} else
				n = max + 1;
			if (n < 1 || n > SQLTEXT_MAX_PARAM) {
				buf_release(&b);
				errno = EINVAL;
				return NULL;
			}
			if (n > max)
				max = n;
			bad |= buf_printf(&b, "$%ld", n);
		}
	}
	if (bad) {
		buf_release(&b);
		errno = ENOMEM;
		return NULL;
	}
	*nparams = (int)max;
	return buf_detach(&b);
}
