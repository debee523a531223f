/*
 * fuzz-segment.c: the index segment reader (lib/search/segment.c) on arbitrary bytes. The
 * first byte picks the mode: bit 0 clear, the rest is read as a segment as it is; bit 0 set,
 * the header's file size and both checksums are first made right for the bytes, so that the
 * checks behind them (the section table: bounds, alignment, element sizes, overlaps, ids)
 * are reached. Every byte of every section found is read, so that a section reaching
 * outside the input shows as a sanitizer report. The vector sections (lib/search/vecseg.c)
 * are then opened on the same segment, and when they are accepted every row is read and a
 * search runs over them, so that a vector section that lies about its sizes shows too; the
 * input is copied to a 64-byte aligned buffer, as a mapping is, so that the checks past the
 * alignment's are reached. Then the lexical index (lib/search/lexindex.c) is opened on the
 * same bytes (lexindex_open_memory: its checks, the place sections' included), and when it is
 * accepted a few questions are searched, with and without proximity, pruned and exhaustive,
 * and every snippet's place and parent are read: what a query node does with a segment it
 * fetched from the database.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/tokenize.h"
#include "search/lexindex.h"
#include "search/segment.h"
#include "search/vecseg.h"
#include "search/vector.h"
#include "store/stmt.h"
#include "store/tokenizer.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The stemmer of the questions, made once: FTS5's chain over an in-memory SQLite. */
static struct tokenize_stemmer *
fuzz_stemmer(void)
{
	static struct tokenize_stemmer *stem;
	static struct db *db;		/* kept reachable: it lives as long as the process */
	static int	 tried;
	sqlite3		*lite = NULL;

	if (tried)
		return stem;
	tried = 1;
	if (sqlite3_open_v2(":memory:", &lite, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    (db = db_conn_sqlite(lite)) == NULL || tokenize_register(db) == -1)
		abort();
	if ((stem = tokenize_stemmer_open(db)) == NULL)
		abort();
	return stem;
}

/* Searches and reads all of a lexical index that lexindex_open_memory accepted. */
static unsigned
fuzz_lexical(struct lexindex *x)
{
	static const char *questions[] = { "\"curl\" \"retry\"", "\"timeout\"",
	    "\"a\" \"b\" \"c\" \"d\"", "\"set\" \"timeout\"" };
	struct lexindex_hit hits[16];
	const char	*path, *title;
	char		*terms[4];
	size_t		 q, n, i, k, nterms;
	unsigned	 sum = 0;
	int		 flags, flagged;

	for (q = 0; q < sizeof(questions) / sizeof(questions[0]); q++) {
		char	 buf[64], *p, *save = NULL;

		snprintf(buf, sizeof(buf), "%s", questions[q]);
		for (nterms = 0, p = strtok_r(buf, " ", &save); p != NULL && nterms < 4;
		    p = strtok_r(NULL, " ", &save))
			terms[nterms++] = p;
		for (flags = 0; flags < 16; flags++) {
			if (lexindex_search(x, fuzz_stemmer(), terms, nterms,
			    flags & (LEXINDEX_PROXIMITY | LEXINDEX_IDF_FLOOR |
			    LEXINDEX_EXHAUSTIVE | LEXINDEX_PRUNE_ALWAYS), hits, 16, &n) == -1)
				continue;
			for (i = 0; i < n; i++) {
				sum += (unsigned)hits[i].id + (unsigned)hits[i].tokens;
				if (lexindex_place(x, hits[i].id, &path, &title, &flagged) == 1)
					for (k = 0; path[k] != '\0' || title[k] != '\0'; k++)
						sum += (unsigned char)(path[k] != '\0' ? path[k] :
						    title[k]);
				sum += (unsigned)lexindex_parent_of(x, hits[i].id);
			}
		}
	}
	return sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct segment	*g;
	struct vecindex	*vx;
	struct vecseg_info info;
	struct vector_arrays a;
	struct lexindex_hit hits[8];
	float		 query[VECTOR_MAX_DIM];
	unsigned char	*b;
	void		*mem;
	char		 why[128];
	size_t		 len, n, i, hlen;
	uint32_t	 id, nsec, crc;
	uint64_t	 v;
	volatile unsigned sum = 0;

	if (size < 1)
		return 0;
	len = size - 1;
	if (posix_memalign(&mem, SEGMENT_ALIGN, len ? len : 1) != 0)
		return 0;
	b = mem;
	memcpy(b, data + 1, len);
	if ((data[0] & 1) && len >= SEGMENT_HEADER) {
		memcpy(&nsec, b + 12, 4);
		if (nsec <= SEGMENT_MAX_SECTIONS &&
		    (hlen = SEGMENT_HEADER + SEGMENT_ENTRY * (size_t)nsec) <= len) {
			v = len;
			memcpy(b + 16, &v, 8);
			crc = segment_crc32c(0, b + hlen, len - hlen);
			memcpy(b + 24, &crc, 4);
			memset(b + 28, 0, 4);
			crc = segment_crc32c(0, b, hlen);
			memcpy(b + 28, &crc, 4);
		}
	}
	if ((g = segment_open_memory(b, len, why, sizeof(why))) != NULL) {
		for (id = 0; id < 256; id++) {
			const unsigned char *p;
			uint32_t elem;

			for (elem = 1; elem <= 8; elem *= 2)
				if ((p = segment_get(g, id, elem, &n)) != NULL)
					for (i = 0; i < n * elem; i++)
						sum += p[i];
		}
		for (id = 0x100; id < 0x108; id++) {
			const unsigned char *p;
			uint32_t elem;

			for (elem = 1; elem <= 8; elem *= 2)
				if ((p = segment_get(g, id, elem, &n)) != NULL)
					for (i = 0; i < n * elem; i++)
						sum += p[i];
		}
		if ((vx = vecseg_open(g, &info, why, sizeof(why))) != NULL) {
			/* g is the index's now: vector_index_free closes it */
			vector_index_arrays(vx, &a);
			for (i = 0; i < a.n * a.stride; i++)
				sum += (unsigned char)a.q[i];
			for (i = 0; i < a.n * a.dim; i++)
				sum += a.f[i] > 0;
			for (i = 0; i < a.n; i++)
				sum += (a.scale[i] > 0) + (unsigned)a.ids[i] +
				    (unsigned)a.docs[i] + (unsigned)a.tokens[i];
			for (i = 0; i < a.dim; i++)
				query[i] = (float)(i % 7) - 3.0f;
			if (a.dim > 0 && vector_index_search(vx, query, a.dim, 8, hits,
			    &n) == 0)
				for (i = 0; i < n; i++)
					sum += (unsigned)hits[i].id;
			vector_index_free(vx);
		} else {
			if (errno != ENODATA && why[0] == '\0')
				abort();	/* a refusal always says why */
			segment_close(g);
		}
	} else if (why[0] == '\0')
		abort();	/* a refusal always says why */
	{
		struct lexindex *x;

		why[0] = '\0';
		if ((x = lexindex_open_memory(b, len, why, sizeof(why))) != NULL) {
			sum += fuzz_lexical(x);
			lexindex_free(x);
		} else if (why[0] == '\0')
			abort();	/* a refusal always says why */
	}
	free(b);
	return 0;
}
