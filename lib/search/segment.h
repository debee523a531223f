/*
 * segment.h: the container of an index segment (docs/DESIGN.md, "Index segments"): an
 * immutable file of typed, 64-byte aligned sections behind a header with a magic, a format
 * version and CRC-32C checksums. Written to a temporary name, fsynced and renamed into place
 * (segment_write); mapped read-only and validated before any use (segment_map), or validated
 * in a caller's buffer (segment_open_memory). A segment that fails a check is refused with a
 * reason; nothing is read outside the file.
 */
#ifndef SEGMENT_H
#define SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#define SEGMENT_FORMAT		1	/* the format this build writes and reads */
#define SEGMENT_MAX_SECTIONS	64
#define SEGMENT_ALIGN		64	/* every section starts on a multiple of this */
#define SEGMENT_HEADER		64	/* bytes of the header, before the section table */
#define SEGMENT_ENTRY		24	/* bytes of one section table entry */

/* A section to write: count elements of elem bytes at data. */
struct segment_part {
	uint32_t	 id;		/* unique within a segment */
	uint32_t	 elem;		/* element size, >= 1 */
	const void	*data;		/* NULL only when count is 0 */
	uint64_t	 count;
};

struct segment;

/* CRC-32C (Castagnoli) of p[0..n), continuing crc (0 to start). */
uint32_t segment_crc32c(uint32_t crc, const void *p, size_t n);

/*
 * Writes the parts into dir/name: to dir/.name.PID.tmp (created exclusively, 0640),
 * fsynced, renamed to dir/name, and dir fsynced. On failure the temporary file is removed
 * and dir/name (if it existed) is unchanged. 0, or -1 with errno set (EINVAL: bad parts
 * or a name with a '/').
 */
int	 segment_write(const char *dir, const char *name, const struct segment_part *,
	    size_t nparts);

/*
 * Maps path read-only (MAP_SHARED) and validates it; the descriptor is closed before
 * return. NULL when it cannot be opened or mapped (errno set, why "") or is refused
 * (errno EINVAL, why says which check failed).
 */
struct segment *segment_map(const char *path, char *why, size_t whylen);
/* Validates the segment in buf[0..len) (not copied: buf must outlive the segment). */
struct segment *segment_open_memory(const void *buf, size_t len, char *why, size_t whylen);
void	 segment_close(struct segment *);
/* Bytes of the file. */
size_t	 segment_size(const struct segment *);

/*
 * Section id, when its element size is elem: its data (aligned to SEGMENT_ALIGN in the
 * file) and *count elements. NULL (and *count 0) when there is no such section or its
 * element size differs.
 */
const void *segment_get(const struct segment *, uint32_t id, uint32_t elem, size_t *count);

/*
 * Removes, in dir, every "*.seg" file for which keep(name, arg) is 0, and every temporary
 * ".*.tmp" file whose writer (the PID in its name) no longer runs. The number removed, or
 * -1 when dir cannot be read (ENOENT: 0).
 */
int	 segment_remove_unused(const char *dir, int (*keep)(const char *name, void *arg),
	    void *arg);
/* segment_remove_unused of the files "*<suffix>" (".db": the local copies). */
int	 segment_remove_unused_as(const char *dir, const char *suffix,
	    int (*keep)(const char *name, void *arg), void *arg);

/*
 * Removes, in dir, the segments "<lib_no>-<v>.seg" of library lib_no older than
 * index_version (v < index_version: a version, once replaced, is never served again), and
 * dead writers' temporary files, as segment_remove_unused. A node that fetches a library's
 * new segment from the database removes its old ones so (their writer, on another node,
 * removed its own). The number removed, or -1.
 */
int	 segment_remove_older(const char *dir, long long lib_no, long long index_version);
/*
 * A file name "<lib_no>-<index_version><suffix>" (suffix ".seg" or ".db", digits only) read
 * into its two numbers: 0, or -1 when name is not one.
 */
int	 segment_name_parse(const char *name, const char *suffix, long long *lib_no,
	    long long *index_version);
/* segment_remove_older of the files "<lib_no>-<v><suffix>" (".seg": the segments). */
int	 segment_remove_older_as(const char *dir, const char *suffix, long long lib_no,
	    long long index_version);

/*
 * Keeps the files "*<suffix>" of dir (not the temporary ones) within max_bytes in all:
 * removes the least recently modified first, never the one named keep (NULL: none). A
 * process that has one open keeps reading it. The number removed, or -1 (ENOENT: 0); the
 * files left and their bytes into *nleft and *bytes_left when not NULL.
 */
long	 segment_bound_folder(const char *dir, const char *suffix, long long max_bytes,
	    const char *keep, size_t *nleft, long long *bytes_left);

/*
 * Runs fetch(arg), which puts a new file at dir/name (a segment fetched from the database:
 * store/segstore.h), at most one process of the node at a time: under an exclusive lock
 * (flock) of dir/.<name>.lock, created 0640 and removed when done. A process that finds it
 * held waits at most wait_ms; when the file at dir/name changed meanwhile (another process
 * put it there), fetch is not run. A process that opened the lock file before its holder
 * removed it and locks it afterwards finds the new file, so only after a failed fetch may
 * two processes fetch at once. 0 a new file is at dir/name; -1 not, with errno ETIMEDOUT
 * (another process still holds the lock), or fetch's (which returns 0 or -1), or the lock
 * file's error.
 */
int	 segment_fetch_once(const char *dir, const char *name, long wait_ms,
	    int (*fetch)(void *arg), void *arg);

#endif /* SEGMENT_H */
