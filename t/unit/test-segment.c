/*
 * test-segment.c: the index segment container (lib/search/segment.c): what is written is
 * mapped back byte for byte and aligned; a truncated, corrupt, old-format or malformed file
 * is refused with its reason; a failed write leaves the previous file in place; unused
 * segments and dead writers' temporary files are removed.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search/segment.h"
#include "tap.h"

static char dir[] = "/tmp/test-segment.XXXXXX";

static int
slurp(const char *path, unsigned char **b, size_t *n)
{
	FILE	*f;
	long	 sz;

	if ((f = fopen(path, "rb")) == NULL)
		return -1;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	rewind(f);
	*b = malloc((size_t)sz + 1);
	*n = fread(*b, 1, (size_t)sz, f);
	fclose(f);
	return *n == (size_t)sz ? 0 : -1;
}

static int
spill(const char *path, const unsigned char *b, size_t n)
{
	FILE	*f;
	int	 rc;

	if ((f = fopen(path, "wb")) == NULL)
		return -1;
	rc = fwrite(b, 1, n, f) == n ? 0 : -1;
	return fclose(f) == 0 ? rc : -1;
}

/* Maps path and expects a refusal whose reason contains want. */
static void
refused(const char *path, const char *want, const char *what)
{
	struct segment	*g;
	char		 why[128] = "";

	g = segment_map(path, why, sizeof(why));
	ok(g == NULL && errno == EINVAL && strstr(why, want) != NULL,
	    "%s is refused: \"%s\"", what, why);
	segment_close(g);
}

/* Rewrites the header checksum of b (after a deliberate change to the header or table). */
static void
fix_head(unsigned char *b)
{
	uint32_t nsec, crc;
	size_t	 hlen;

	memcpy(&nsec, b + 12, 4);
	hlen = SEGMENT_HEADER + SEGMENT_ENTRY * (size_t)nsec;
	memset(b + 28, 0, 4);
	crc = segment_crc32c(0, b, hlen);
	memcpy(b + 28, &crc, 4);
}

static int
keep_a(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "a.seg") == 0;
}

/* CRC-32C bit by bit (the definition), continuing crc. */
static uint32_t
crc_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
	int	 k;

	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc & 1) ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

int
main(void)
{
	static const char text[] = "terms\0postings\0";
	uint32_t	 u32[1000];
	int64_t		 i64[3] = { -1, 0, INT64_MAX };
	struct segment_part parts[4];
	struct segment	*g;
	const uint32_t	*pu;
	const int64_t	*pi;
	const char	*pc;
	unsigned char	*b, *c;
	char		 path[512], path2[512], why[128];
	size_t		 n, len, i;
	uint64_t	 v;

	ok(segment_crc32c(0, "123456789", 9) == 0xe3069283u,
	    "CRC-32C of the check string");
	{
		/* the (hardware, where there is) CRC equals a bitwise one at every length,
		 * alignment and split of a computation in two */
		static unsigned char buf[300];
		size_t	 off, l, cut;
		int	 same = 1;

		for (i = 0; i < sizeof(buf); i++)
			buf[i] = (unsigned char)(i * 131 + 7);
		for (off = 0; off < 9; off++)
			for (l = 0; off + l <= sizeof(buf); l += 1 + l / 8) {
				uint32_t want = crc_bitwise(0, buf + off, l);

				cut = l / 3;
				if (segment_crc32c(0, buf + off, l) != want ||
				    segment_crc32c(segment_crc32c(0, buf + off, cut),
				    buf + off + cut, l - cut) != want)
					same = 0;
			}
		ok(same, "CRC-32C equals the bitwise definition at every length, alignment "
		    "and split");
	}
	if (mkdtemp(dir) == NULL)
		return 1;
	for (i = 0; i < 1000; i++)
		u32[i] = (uint32_t)(i * 2654435761u);
	parts[0] = (struct segment_part){ 1, 4, u32, 1000 };
	parts[1] = (struct segment_part){ 2, 8, i64, 3 };
	parts[2] = (struct segment_part){ 3, 1, text, sizeof(text) };
	parts[3] = (struct segment_part){ 4, 4, NULL, 0 };
	ok(segment_write(dir, "a.seg", parts, 4) == 0, "written");
	snprintf(path, sizeof(path), "%s/a.seg", dir);

	/* The round trip. */
	g = segment_map(path, why, sizeof(why));
	ok(g != NULL, "mapped (%s)", why);
	if (g == NULL)
		return tap_done();
	pu = segment_get(g, 1, 4, &n);
	ok(pu != NULL && n == 1000 && memcmp(pu, u32, sizeof(u32)) == 0 &&
	    (uintptr_t)pu % SEGMENT_ALIGN == 0, "u32 section round trip, aligned");
	pi = segment_get(g, 2, 8, &n);
	ok(pi != NULL && n == 3 && pi[0] == -1 && pi[2] == INT64_MAX &&
	    (uintptr_t)pi % SEGMENT_ALIGN == 0, "i64 section round trip, aligned");
	pc = segment_get(g, 3, 1, &n);
	ok(pc != NULL && n == sizeof(text) && memcmp(pc, text, n) == 0, "byte section");
	segment_get(g, 4, 4, &n);
	ok(n == 0, "empty section");
	ok(segment_get(g, 1, 8, &n) == NULL && n == 0, "wrong element size: nothing");
	ok(segment_get(g, 9, 4, &n) == NULL && n == 0, "absent section: nothing");
	segment_close(g);

	/* Damage, one copy at a time. */
	if (slurp(path, &b, &len) == -1)
		return 1;
	c = malloc(len);
	snprintf(path2, sizeof(path2), "%s/bad.seg", dir);

	ok(spill(path2, b, len / 2) == 0, "truncated copy");
	refused(path2, "truncated", "a truncated file");
	ok(spill(path2, b, 40) == 0, "copy shorter than a header");
	refused(path2, "shorter than a segment header", "a 40-byte file");

	memcpy(c, b, len);
	c[len - 70] ^= 0x40;		/* inside the last section */
	spill(path2, c, len);
	refused(path2, "body checksum", "a flipped body bit");

	memcpy(c, b, len);
	c[SEGMENT_HEADER + 3] ^= 1;	/* the first section's id */
	spill(path2, c, len);
	refused(path2, "header checksum", "a changed section table");

	memcpy(c, b, len);
	c[8] = SEGMENT_FORMAT - 1;	/* an older format */
	fix_head(c);
	spill(path2, c, len);
	refused(path2, "format version", "an old-format segment");

	memcpy(c, b, len);
	c[0] = 'X';
	spill(path2, c, len);
	refused(path2, "magic", "another file");

	/* Well-checksummed but lying tables. */
	memcpy(c, b, len);
	v = len;			/* the first section starts at the end */
	memcpy(c + SEGMENT_HEADER + 8, &v, 8);
	fix_head(c);
	spill(path2, c, len);
	refused(path2, "outside the file", "a section past the end");

	memcpy(c, b, len);
	v = UINT64_MAX - 63;		/* offset + length wraps */
	memcpy(c + SEGMENT_HEADER + 16, &v, 8);
	fix_head(c);
	spill(path2, c, len);
	refused(path2, "", "a section length that wraps");

	memcpy(c, b, len);
	memcpy(&v, c + SEGMENT_HEADER + 8, 8);
	memcpy(c + SEGMENT_HEADER + SEGMENT_ENTRY + 8, &v, 8);	/* 2 inside 1 */
	fix_head(c);
	spill(path2, c, len);
	refused(path2, "overlap", "overlapping sections");

	memcpy(c, b, len);
	v = 7;				/* 7 bytes of 4-byte elements */
	memcpy(c + SEGMENT_HEADER + 16, &v, 8);
	fix_head(c);
	spill(path2, c, len);
	refused(path2, "whole number", "a partial element");

	memcpy(c, b, len);
	c[12] = 200;			/* more sections than allowed */
	spill(path2, c, len);
	refused(path2, "too many sections", "a huge section count");

	g = segment_open_memory(b, len, why, sizeof(why));
	ok(g != NULL, "the intact bytes validate in memory too");
	segment_close(g);

	/* A failed write leaves the previous file. */
	parts[0].data = NULL;		/* invalid: count 1000 without data */
	ok(segment_write(dir, "a.seg", parts, 4) == -1 && errno == EINVAL,
	    "invalid parts are refused");
	ok(segment_write(dir, "../a.seg", parts + 1, 1) == -1 && errno == EINVAL,
	    "a name with a slash is refused");
	g = segment_map(path, why, sizeof(why));
	ok(g != NULL, "the previous segment is still whole");
	segment_close(g);

	/* Cleanup: bad.seg is unused, a dead writer's .tmp goes, a live one's stays. */
	snprintf(path2, sizeof(path2), "%s/.x.seg.999999999.tmp", dir);
	spill(path2, b, 10);
	snprintf(path2, sizeof(path2), "%s/.y.seg.%ld.tmp", dir, (long)getpid());
	spill(path2, b, 10);
	ok(segment_remove_unused(dir, keep_a, NULL) == 2, "two removed");
	ok(access(path, F_OK) == 0, "the used segment stays");
	ok(access(path2, F_OK) == 0, "a running writer's temporary file stays");
	snprintf(path2, sizeof(path2), "%s/bad.seg", dir);
	ok(access(path2, F_OK) == -1, "the unused one is gone");
	ok(segment_remove_unused("/nonexistent/segments", keep_a, NULL) == 0,
	    "no directory: nothing to do");

	free(b);
	free(c);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ok(system(path) == 0, "cleanup");
	return tap_done();
}
