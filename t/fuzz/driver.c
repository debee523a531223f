/*
 * driver.c: runs a libFuzzer-style target (LLVMFuzzerTestOneInput) without libFuzzer: every
 * file named on the command line, then N random mutations of each (byte flips, inserts,
 * deletions, truncations, splices), from a fixed seed so that a failure can be replayed.
 * Prints one TAP line. A crash, a sanitizer report or a hang is the failure.
 *
 * usage: fuzz-X [-n mutations] [-s seed] file...
 * With clang, the same target links with -fsanitize=fuzzer instead (make fuzz).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* One random edit of buf (length *n, capacity cap). */
static void
mutate(uint8_t *buf, size_t *n, size_t cap, const uint8_t *other, size_t on)
{
	size_t	 pos = *n ? rng() % *n : 0, len;

	switch (rng() % 6) {
	case 0:				/* flip a byte */
		if (*n)
			buf[pos] ^= (uint8_t)(1u << (rng() % 8));
		break;
	case 1:				/* interesting byte */
		if (*n) {
			static const uint8_t b[] = { 0, '\n', '#', '`', '~', ':', '.',
			    '=', '-', '*', '"', '\\', '{', '}', '[', ']', '<', '>', 0xff,
			    0xc3, '/', '!' };

			buf[pos] = b[rng() % sizeof(b)];
		}
		break;
	case 2:				/* insert a run of one byte */
		len = 1 + rng() % 16;
		if (*n + len <= cap) {
			memmove(buf + pos + len, buf + pos, *n - pos);
			memset(buf + pos, "#`\n :*-=\t"[rng() % 9], len);
			*n += len;
		}
		break;
	case 3:				/* delete a span */
		len = *n > pos ? 1 + rng() % (*n - pos) : 0;
		if (len > 64)
			len = 1 + rng() % 64;
		memmove(buf + pos, buf + pos + len, *n - pos - len);
		*n -= len;
		break;
	case 4:				/* truncate */
		*n = pos;
		break;
	case 5:				/* splice in a piece of another input */
		if (on > 0) {
			size_t from = rng() % on;

			len = 1 + rng() % 128;
			if (len > on - from)
				len = on - from;
			if (*n + len <= cap) {
				memmove(buf + pos + len, buf + pos, *n - pos);
				memcpy(buf + pos, other + from, len);
				*n += len;
			}
		}
		break;
	}
}

/* A target's one-time set-up, when it has one (as libFuzzer calls it). */
int	 LLVMFuzzerInitialize(int *, char ***) __attribute__((weak));

int
main(int argc, char *argv[])
{
	char		**data;
	size_t		*lens, i, k, runs = 0, n;
	long		 mutations = 200, seed = 1;
	int		 argi = 1, nfiles;
	uint8_t		*buf;

	log_init("fuzz");
	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	while (argi + 1 < argc && argv[argi][0] == '-') {
		if (strcmp(argv[argi], "-n") == 0 &&
		    util_parse_long(argv[argi + 1], 0, 10000000, &mutations) == 0)
			argi += 2;
		else if (strcmp(argv[argi], "-s") == 0 &&
		    util_parse_long(argv[argi + 1], 1, 1L << 40, &seed) == 0)
			argi += 2;
		else
			break;
	}
	nfiles = argc - argi;
	if (nfiles <= 0) {
		fprintf(stderr, "usage: %s [-n mutations] [-s seed] file...\n", argv[0]);
		return 2;
	}
	rng_state ^= (uint64_t)seed * 0x9E3779B97F4A7C15ULL;
	data = calloc((size_t)nfiles, sizeof(*data));
	lens = calloc((size_t)nfiles, sizeof(*lens));
	if (data == NULL || lens == NULL)
		return 1;
	for (i = 0; i < (size_t)nfiles; i++) {
		if (util_read_file(argv[argi + i], 1 << 20, &data[i], &lens[i]) == -1) {
			fprintf(stderr, "cannot read %s\n", argv[argi + i]);
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)data[i], lens[i]);
		runs++;
	}
	for (i = 0; i < (size_t)nfiles; i++) {
		size_t cap = lens[i] + 4096;

		if ((buf = malloc(cap)) == NULL)
			return 1;
		for (k = 0; k < (size_t)mutations; k++) {
			size_t other = rng() % (size_t)nfiles, edits = 1 + rng() % 4;

			memcpy(buf, data[i], lens[i]);
			n = lens[i];
			while (edits-- > 0)
				mutate(buf, &n, cap, (const uint8_t *)data[other],
				    lens[other]);
			LLVMFuzzerTestOneInput(buf, n);
			runs++;
		}
		free(buf);
	}
	printf("ok 1 - %zu inputs from %d seed files, no crash\n1..1\n", runs, nfiles);
	for (i = 0; i < (size_t)nfiles; i++)
		free(data[i]);
	free(data);
	free(lens);
	return 0;
}
