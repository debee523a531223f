/*
 * segment.c: the container of an index segment (see segment.h and docs/DESIGN.md, "Index
 * segments").
 *
 * Layout (host byte order, which must be little-endian: the byte-order mark refuses others):
 *   0  magic "CTXDSEG\0"          8  format (u32)        12 sections (u32)
 *   16 file size (u64)            24 body CRC-32C (u32)  28 head CRC-32C (u32)
 *   32 byte-order mark 0x01020304 (u32), then zeros to 64
 *   64 section table: per section id (u32), elem (u32), offset (u64), length (u64)
 * then the sections, each at a multiple of SEGMENT_ALIGN, zero padding between them. The head
 * CRC covers the header (with its own field as zero) and the table; the body CRC every byte
 * after the table.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "search/segment.h"

static const char segment_magic[8] = "CTXDSEG";
#define SEGMENT_BOM	0x01020304u

struct segment_entry {
	uint32_t	 id, elem;
	uint64_t	 off, len;
};

struct segment {
	const unsigned char *base;
	size_t		 len;
	int		 mapped;
	uint32_t	 n;
	struct segment_entry e[SEGMENT_MAX_SECTIONS];
};

static uint32_t crc_tab[256];
static int	 crc_ready;

static void
crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_tab[i] = c;
	}
	crc_ready = 1;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/*
 * CRC-32C with SSE4.2's crc32 instruction, 8 bytes at a time (about 20 times the table's
 * speed): a mapped segment is checked whole before use, vectors included, so the check is
 * most of the cost of a library's first question in a process. crc is already inverted.
 */
__attribute__((target("sse4.2")))
static uint32_t
crc32c_sse42(uint32_t crc, const unsigned char *s, size_t n)
{
	uint64_t c = crc, w;

	for (; n > 0 && ((uintptr_t)s & 7) != 0; n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *s++);
	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		c = __builtin_ia32_crc32di(c, w);
	}
	for (; n > 0; n--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *s++);
	return (uint32_t)c;
}
#define SEGMENT_CRC_HW
#endif

uint32_t
segment_crc32c(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *s = p;

#ifdef SEGMENT_CRC_HW
	static int hw = -1;

	if (hw == -1) {
		__builtin_cpu_init();
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	}
	if (hw)
		return ~crc32c_sse42(~crc, s, n);
#endif
	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (n--)
		crc = crc_tab[(crc ^ *s++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void
put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void
put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint32_t
get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t
get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint64_t
align_up(uint64_t v)
{
	return (v + SEGMENT_ALIGN - 1) & ~(uint64_t)(SEGMENT_ALIGN - 1);
}

static int
write_all(int fd, const void *p, size_t n, uint32_t *crc)
{
	const unsigned char *s = p;
	ssize_t	 w;

	if (crc != NULL)
		*crc = segment_crc32c(*crc, p, n);
	while (n > 0) {
		if ((w = write(fd, s, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int
segment_write(const char *dir, const char *name, const struct segment_part *parts,
    size_t nparts)
{
	static const unsigned char zero[SEGMENT_ALIGN];
	unsigned char	 head[SEGMENT_HEADER + SEGMENT_ENTRY * SEGMENT_MAX_SECTIONS];
	char		 tmp[PATH_MAX], dst[PATH_MAX];
	uint64_t	 off, size, len[SEGMENT_MAX_SECTIONS];
	uint32_t	 body = 0, hcrc;
	size_t		 i, j, hlen;
	int		 fd, dfd, saved;

	if (nparts > SEGMENT_MAX_SECTIONS || strchr(name, '/') != NULL || *name == '\0' ||
	    *name == '.') {
		errno = EINVAL;
		return -1;
	}
	hlen = SEGMENT_HEADER + SEGMENT_ENTRY * nparts;
	memset(head, 0, sizeof(head));
	off = align_up(hlen);
	for (i = 0; i < nparts; i++) {
		if (parts[i].elem == 0 || (parts[i].data == NULL && parts[i].count > 0) ||
		    parts[i].count > UINT64_MAX / 2 / parts[i].elem) {
			errno = EINVAL;
			return -1;
		}
		for (j = 0; j < i; j++)
			if (parts[j].id == parts[i].id) {
				errno = EINVAL;
				return -1;
			}
		len[i] = parts[i].count * parts[i].elem;
		put32(head + SEGMENT_HEADER + SEGMENT_ENTRY * i, parts[i].id);
		put32(head + SEGMENT_HEADER + SEGMENT_ENTRY * i + 4, parts[i].elem);
		put64(head + SEGMENT_HEADER + SEGMENT_ENTRY * i + 8, off);
		put64(head + SEGMENT_HEADER + SEGMENT_ENTRY * i + 16, len[i]);
		off = align_up(off + len[i]);
	}
	size = off;
	/* The body CRC first: it is in the header. */
	body = segment_crc32c(body, zero, align_up(hlen) - hlen);
	for (i = 0; i < nparts; i++) {
		uint64_t pad = align_up(len[i]) - len[i];

		if (len[i] > 0)
			body = segment_crc32c(body, parts[i].data, len[i]);
		body = segment_crc32c(body, zero, pad);
	}
	memcpy(head, segment_magic, sizeof(segment_magic));
	put32(head + 8, SEGMENT_FORMAT);
	put32(head + 12, (uint32_t)nparts);
	put64(head + 16, size);
	put32(head + 24, body);
	put32(head + 32, SEGMENT_BOM);
	hcrc = segment_crc32c(0, head, hlen);
	put32(head + 28, hcrc);

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.%ld.tmp", dir, name, (long)getpid()) >=
	    (int)sizeof(tmp) || snprintf(dst, sizeof(dst), "%s/%s", dir, name) >=
	    (int)sizeof(dst)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	(void)unlink(tmp);	/* a leftover of an earlier process with this PID */
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640)) == -1)
		return -1;
	if (write_all(fd, head, hlen, NULL) == -1 ||
	    write_all(fd, zero, align_up(hlen) - hlen, NULL) == -1)
		goto fail;
	for (i = 0; i < nparts; i++)
		if ((len[i] > 0 && write_all(fd, parts[i].data, len[i], NULL) == -1) ||
		    write_all(fd, zero, align_up(len[i]) - len[i], NULL) == -1)
			goto fail;
	/* tests only: a writer killed before its rename (t/t0139-index-segment.sh) */
	if (getenv("CTXD_TEST_SEGMENT_STALL") != NULL)
		sleep(30);
	if (fsync(fd) == -1)
		goto fail;
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, dst) == -1)
		goto fail;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		close(dfd);
	}
	return 0;
fail:
	saved = errno;
	if (fd != -1)
		close(fd);
	(void)unlink(tmp);
	errno = saved;
	return -1;
}

static int
refuse(char *why, size_t whylen, const char *reason)
{
	if (why != NULL && whylen > 0)
		snprintf(why, whylen, "%s", reason);
	errno = EINVAL;
	return -1;
}

/* Validates g->base[0..g->len) into g's table: 0, or -1 (errno EINVAL) with why. */
static int
segment_check(struct segment *g, char *why, size_t whylen)
{
	const unsigned char *b = g->base;
	unsigned char	 hcopy[SEGMENT_HEADER + SEGMENT_ENTRY * SEGMENT_MAX_SECTIONS];
	size_t		 hlen, i, j;
	uint64_t	 tabend;

	if (why != NULL && whylen > 0)
		*why = '\0';
	if (g->len < SEGMENT_HEADER)
		return refuse(why, whylen, "shorter than a segment header");
	if (memcmp(b, segment_magic, sizeof(segment_magic)) != 0)
		return refuse(why, whylen, "not a segment (bad magic)");
	if (get32(b + 32) != SEGMENT_BOM)
		return refuse(why, whylen, "written with another byte order");
	if (get32(b + 8) != SEGMENT_FORMAT)
		return refuse(why, whylen, "another segment format version");
	if ((g->n = get32(b + 12)) > SEGMENT_MAX_SECTIONS)
		return refuse(why, whylen, "too many sections");
	if (get64(b + 16) != g->len)
		return refuse(why, whylen, "file size differs from the header's (truncated?)");
	hlen = SEGMENT_HEADER + SEGMENT_ENTRY * (size_t)g->n;
	tabend = align_up(hlen);
	if (tabend > g->len)
		return refuse(why, whylen, "section table past the end");
	for (i = 36; i < SEGMENT_HEADER; i++)
		if (b[i] != 0)
			return refuse(why, whylen, "reserved header bytes not zero");
	memcpy(hcopy, b, hlen);
	put32(hcopy + 28, 0);
	if (segment_crc32c(0, hcopy, hlen) != get32(b + 28))
		return refuse(why, whylen, "header checksum mismatch");
	for (i = 0; i < g->n; i++) {
		struct segment_entry *e = &g->e[i];
		const unsigned char *p = b + SEGMENT_HEADER + SEGMENT_ENTRY * i;

		e->id = get32(p);
		e->elem = get32(p + 4);
		e->off = get64(p + 8);
		e->len = get64(p + 16);
		if (e->elem == 0 || e->len % e->elem != 0)
			return refuse(why, whylen, "section length not a whole number "
			    "of elements");
		if (e->off % SEGMENT_ALIGN != 0 || e->off < tabend || e->off > g->len ||
		    e->len > g->len - e->off)
			return refuse(why, whylen, "section outside the file");
		for (j = 0; j < i; j++) {
			const struct segment_entry *f = &g->e[j];

			if (f->id == e->id)
				return refuse(why, whylen, "section appears twice");
			if (e->len > 0 && f->len > 0 && e->off < f->off + f->len &&
			    f->off < e->off + e->len)
				return refuse(why, whylen, "sections overlap");
		}
	}
	if (segment_crc32c(0, b + hlen, g->len - hlen) != get32(b + 24))
		return refuse(why, whylen, "body checksum mismatch (corrupt)");
	return 0;
}

struct segment *
segment_open_memory(const void *buf, size_t len, char *why, size_t whylen)
{
	struct segment	*g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->base = buf;
	g->len = len;
	if (segment_check(g, why, whylen) == -1) {
		free(g);
		errno = EINVAL;
		return NULL;
	}
	return g;
}

struct segment *
segment_map(const char *path, char *why, size_t whylen)
{
	struct segment	*g;
	struct stat	 st;
	void		*p;
	int		 fd, saved;

	if (why != NULL && whylen > 0)
		*why = '\0';
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < SEGMENT_HEADER ||
	    (unsigned long long)st.st_size > SIZE_MAX) {
		close(fd);
		(void)refuse(why, whylen, !S_ISREG(st.st_mode) ?
		    "not a regular file" : "shorter than a segment header");
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	saved = errno;
	close(fd);
	if (p == MAP_FAILED) {
		errno = saved;
		return NULL;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL) {
		munmap(p, (size_t)st.st_size);
		return NULL;
	}
	g->base = p;
	g->len = (size_t)st.st_size;
	g->mapped = 1;
	if (segment_check(g, why, whylen) == -1) {
		segment_close(g);
		errno = EINVAL;
		return NULL;
	}
	return g;
}

void
segment_close(struct segment *g)
{
	if (g == NULL)
		return;
	if (g->mapped)
		munmap((void *)(uintptr_t)g->base, g->len);
	free(g);
}

size_t
segment_size(const struct segment *g)
{
	return g->len;
}

const void *
segment_get(const struct segment *g, uint32_t id, uint32_t elem, size_t *count)
{
	uint32_t i;

	*count = 0;
	for (i = 0; i < g->n; i++)
		if (g->e[i].id == id) {
			if (g->e[i].elem != elem || g->e[i].len / elem > SIZE_MAX)
				return NULL;
			*count = (size_t)(g->e[i].len / elem);
			return g->base + g->e[i].off;
		}
	return NULL;
}

/* The writer's PID in a temporary file's name ".NAME.PID.tmp", or 0. */
static long
tmp_pid(const char *name)
{
	const char	*end, *dot;
	long		 pid = 0;

	if (name[0] != '.' || (end = strrchr(name, '.')) == NULL || strcmp(end, ".tmp") != 0)
		return 0;
	for (dot = end; dot > name && dot[-1] != '.'; dot--)
		;
	if (dot == end || dot == name + 1)
		return 0;
	for (; dot < end; dot++) {
		if (*dot < '0' || *dot > '9' || pid > 100000000)
			return 0;
		pid = pid * 10 + (*dot - '0');
	}
	return pid;
}

/*
 * 1 while process pid may still write: it exists and is not a zombie (a writer killed with
 * its pool is a zombie until the system's init reaps it, which may take a while).
 */
static int
writer_alive(long pid)
{
	char	 path[64], buf[256], *p;
	ssize_t	 n;
	int	 fd;

	if (kill((pid_t)pid, 0) == -1 && errno == ESRCH)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	/* "pid (comm) S ...": the state follows the last ')' */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return 1;
	return p[2] != 'Z' && p[2] != 'X';
}

int
segment_remove_unused_as(const char *dir, const char *suffix,
    int (*keep)(const char *, void *), void *arg)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[PATH_MAX];
	size_t		 n, sn = strlen(suffix);
	long		 pid;
	int		 removed = 0;

	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if ((pid = tmp_pid(de->d_name)) > 0) {
			if (pid == (long)getpid() || writer_alive(pid))
				continue;
		} else if (n <= sn || de->d_name[0] == '.' ||
		    strcmp(de->d_name + n - sn, suffix) != 0 || keep(de->d_name, arg))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (unlink(path) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

int
segment_remove_unused(const char *dir, int (*keep)(const char *, void *), void *arg)
{
	return segment_remove_unused_as(dir, ".seg", keep, arg);
}

/* A library's version: its older files go (segment_remove_older). */
struct segment_older {
	long long	 lib_no, index_version;
	const char	*suffix;
};

/* The decimal number at *p (digits only, at most 18) up to stop: its end, or NULL. */
static const char *
segment_number(const char *p, char stop, long long *v)
{
	long long	 n = 0;
	int		 digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++) {
		if (digits == 18)
			return NULL;
		n = n * 10 + (*p - '0');
	}
	if (digits == 0 || *p != stop)
		return NULL;
	*v = n;
	return p;
}

int
segment_name_parse(const char *name, const char *suffix, long long *lib_no,
    long long *index_version)
{
	const char	*p;

	if ((p = segment_number(name, '-', lib_no)) == NULL ||
	    (p = segment_number(p + 1, '.', index_version)) == NULL || strcmp(p, suffix) != 0)
		return -1;
	return 0;
}

static int
segment_keep_newer(const char *name, void *arg)
{
	const struct segment_older *o = arg;
	long long	 lib, v;

	if (segment_name_parse(name, o->suffix, &lib, &v) == -1)
		return 1;
	return lib != o->lib_no || v >= o->index_version;
}

int
segment_remove_older(const char *dir, long long lib_no, long long index_version)
{
	return segment_remove_older_as(dir, ".seg", lib_no, index_version);
}

int
segment_remove_older_as(const char *dir, const char *suffix, long long lib_no,
    long long index_version)
{
	struct segment_older o = { lib_no, index_version, suffix };

	return segment_remove_unused_as(dir, suffix, segment_keep_newer, &o);
}

/* A file segment_bound_folder may remove. */
struct segment_aged {
	char		 name[256];
	time_t		 mtime;
	off_t		 size;
};

static int
segment_aged_cmp(const void *a, const void *b)
{
	const struct segment_aged *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

long
segment_bound_folder(const char *dir, const char *suffix, long long max_bytes,
    const char *keep, size_t *nleft, long long *bytes_left)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	struct segment_aged *f = NULL, *nf;
	char		 path[PATH_MAX];
	size_t		 n, sn = strlen(suffix), nf_used = 0, cap = 0, i, nfiles = 0;
	long long	 total = 0;
	long		 removed = 0;

	if (nleft != NULL)
		*nleft = 0;
	if (bytes_left != NULL)
		*bytes_left = 0;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= sn || n >= sizeof(f->name) || de->d_name[0] == '.' ||
		    strcmp(de->d_name + n - sn, suffix) != 0 ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path) || stat(path, &st) == -1 || !S_ISREG(st.st_mode))
			continue;
		total += st.st_size;
		nfiles++;
		if (keep != NULL && strcmp(de->d_name, keep) == 0)
			continue;
		if (nf_used == cap) {
			cap = cap ? cap * 2 : 64;
			if ((nf = reallocarray(f, cap, sizeof(*f))) == NULL) {
				free(f);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			f = nf;
		}
		memcpy(f[nf_used].name, de->d_name, n + 1);
		f[nf_used].mtime = st.st_mtime;
		f[nf_used].size = st.st_size;
		nf_used++;
	}
	closedir(d);
	if (nf_used > 0)
		qsort(f, nf_used, sizeof(*f), segment_aged_cmp);
	for (i = 0; i < nf_used && total > max_bytes; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, f[i].name);
		if (unlink(path) == 0) {
			total -= f[i].size;
			removed++;
		}
	}
	free(f);
	if (nleft != NULL)
		*nleft = nfiles - (size_t)removed;
	if (bytes_left != NULL)
		*bytes_left = total;
	return removed;
}

/* Milliseconds of the monotonic clock. */
static long long
segment_now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
segment_fetch_once(const char *dir, const char *name, long wait_ms,
    int (*fetch)(void *), void *arg)
{
	struct stat	 before, st;
	char		 lock[PATH_MAX], path[PATH_MAX];
	long long	 t0 = segment_now_ms();
	int		 fd, had, rc, e;

	if (strchr(name, '/') != NULL ||
	    snprintf(lock, sizeof(lock), "%s/.%s.lock", dir, name) >= (int)sizeof(lock) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		errno = EINVAL;
		return -1;
	}
	had = stat(path, &before) == 0;
	if ((fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0640)) == -1)
		return -1;
	while (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		if ((errno != EWOULDBLOCK && errno != EINTR) ||
		    segment_now_ms() - t0 >= wait_ms) {
			e = errno == EWOULDBLOCK || errno == EINTR ? ETIMEDOUT : errno;
			close(fd);
			errno = e;
			return -1;
		}
		usleep(10000);
	}
	if (stat(path, &st) == 0 && (!had || st.st_ino != before.st_ino ||
	    st.st_dev != before.st_dev))
		rc = 0;		/* put there meanwhile by another process */
	else
		rc = fetch(arg) == 0 ? 0 : -1;
	e = errno;
	unlink(lock);
	close(fd);
	errno = e;
	return rc;
}
