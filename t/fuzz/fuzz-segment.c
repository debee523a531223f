/*
 * fuzz-segment.c: the index segment reader (lib/search/segment.c) on arbitrary bytes. The
 * first byte picks the mode: bit 0 clear, the rest is read as a segment as it is; bit 0 set,
 * the header's file size and both checksums are first made right for the bytes, so that the
 * checks behind them (the section table: bounds, alignment, element sizes, overlaps, ids)
 * are reached. Every byte of every section found is read, so that a section reaching
 * outside the input shows as a sanitizer report.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search/segment.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct segment	*g;
	unsigned char	*b;
	char		 why[128];
	size_t		 len, n, i, hlen;
	uint32_t	 id, nsec, crc;
	uint64_t	 v;
	volatile unsigned sum = 0;

	if (size < 1)
		return 0;
	len = size - 1;
	if ((b = malloc(len ? len : 1)) == NULL)
		return 0;
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
		segment_close(g);
	} else if (why[0] == '\0')
		abort();	/* a refusal always says why */
	free(b);
	return 0;
}
