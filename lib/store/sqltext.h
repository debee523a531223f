/*
 * store/sqltext.h: the text of one SQL statement for either storage engine. The store's
 * statements are written once in the dialect both engines share (parameters ?1, ?2, ...);
 * where SQLite and PostgreSQL differ, a statement is DB_PAIR(sqlite_text, postgres_text)
 * and each engine takes its half (docs/DESIGN.md, "Two engines").
 */
#ifndef STORE_SQLTEXT_H
#define STORE_SQLTEXT_H

/* The storage engines. */
enum db_engine {
	DB_ENGINE_SQLITE,	/* DATA_DIR/ctxd.db, the embedded default */
	DB_ENGINE_POSTGRES	/* DATABASE_URL=postgresql://... */
};

/*
 * One constant for a statement that differs between the engines: a marker byte, SQLite's
 * text, a NUL, PostgreSQL's text. Only sqltext_pick reads it; either half may use ?N.
 */
#define DB_PAIR(lite, pg)	"\001" lite "\0" pg

/* The text engine e runs of sql (a plain statement, or a DB_PAIR). */
const char *sqltext_pick(const char *sql, enum db_engine e);

/*
 * sql (its PostgreSQL half) with its parameters in PostgreSQL's form: ?N becomes $N and a
 * bare ? the next number (SQLite's rule: one more than the largest so far), outside string
 * literals, quoted identifiers and comments. *nparams: the largest parameter number.
 * malloc'd; NULL when memory is short or a parameter number is out of range (0, or past
 * 32767) with errno EINVAL.
 */
char	*sqltext_postgres(const char *sql, int *nparams);

#endif
