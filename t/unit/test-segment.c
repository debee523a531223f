/*
 * test-segment.c: the index segment container (lib/search/segment.c): what is written is
 * mapped back byte for byte and aligned; a truncated, corrupt, old-format or malformed file
 * is refused with its reason; a failed write leaves the previous file in place; unused
 * segments and dead writers' temporary files are removed. The vector sections
 * (lib/search/vecseg.c): a vector index written with its model and embed_version is mapped
 * back array for array and searches exactly as the index it was written from; a segment
 * without them says so; a corrupt vectors section, a truncated file and vector sections
 * whose sizes lie are refused. A fetch into the folder (segment_fetch_once) runs once a
 * node at a time: a process that finds another fetching the name waits, and takes the
 * other's file instead of fetching it again, or gives up after its wait.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "search/lexindex.h"
#include "search/search.h"
#include "search/segment.h"
#include "search/vecseg.h"
#include "search/vector.h"
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


/* The arrays of a small vector index: n rows of dim, quantized as the builder does. */
#define TV_N	37
#define TV_DIM	70
static int8_t	*tv_q;
static float	*tv_f, tv_scale[TV_N];
static long long tv_ids[TV_N], tv_docs[TV_N];
static int	 tv_tokens[TV_N];

static struct vecindex *
tv_make(void)
{
	struct vector_arrays a;
	size_t	 stride = vector_stride(TV_DIM), i, j;
	void	*p;

	if (posix_memalign(&p, 64, TV_N * stride) != 0)
		return NULL;
	tv_q = p;
	if (posix_memalign(&p, 64, TV_N * TV_DIM * sizeof(float)) != 0)
		return NULL;
	tv_f = p;
	memset(tv_q, 0, TV_N * stride);
	for (i = 0; i < TV_N; i++) {
		float *f = tv_f + i * TV_DIM;

		for (j = 0; j < TV_DIM; j++)
			f[j] = (float)((i * 31 + j * 17) % 23) - 11.0f;
		vector_normalize(f, TV_DIM);
		vector_quantize(f, TV_DIM, tv_q + i * stride, &tv_scale[i]);
		tv_ids[i] = 100 + 3 * (long long)i;
		tv_docs[i] = 7 + (long long)i / 5;
		tv_tokens[i] = 10 + (int)i;
	}
	a = (struct vector_arrays){ TV_N, TV_DIM, stride, tv_q, tv_scale, tv_f, tv_ids,
	    tv_docs, tv_tokens };
	return vector_index_wrap(&a, NULL, NULL);
}

/* Maps path's vector sections and expects a refusal whose reason contains want. */
static void
vec_refused(const char *path, const char *want, const char *what)
{
	struct vecseg_info info;
	struct vecindex	*v;
	char		 why[128] = "";

	v = vecseg_map(path, &info, why, sizeof(why));
	ok(v == NULL && errno == EINVAL && strstr(why, want) != NULL,
	    "%s is refused: \"%s\"", what, why);
	vector_index_free(v);
}

/* The offset of section id in segment bytes b, or 0. */
static uint64_t
section_off(const unsigned char *b, uint32_t id, uint64_t *len, size_t *entry)
{
	uint32_t nsec, sid, i;
	uint64_t off;

	memcpy(&nsec, b + 12, 4);
	for (i = 0; i < nsec; i++) {
		memcpy(&sid, b + SEGMENT_HEADER + SEGMENT_ENTRY * i, 4);
		if (sid == id) {
			memcpy(&off, b + SEGMENT_HEADER + SEGMENT_ENTRY * i + 8, 8);
			memcpy(len, b + SEGMENT_HEADER + SEGMENT_ENTRY * i + 16, 8);
			*entry = SEGMENT_HEADER + SEGMENT_ENTRY * i;
			return off;
		}
	}
	return 0;
}

/* Rewrites the body checksum and then the header's of b (len bytes). */
static void
fix_all(unsigned char *b, size_t len)
{
	uint32_t nsec, crc;
	size_t	 hlen;

	memcpy(&nsec, b + 12, 4);
	hlen = SEGMENT_HEADER + SEGMENT_ENTRY * (size_t)nsec;
	crc = segment_crc32c(0, b + hlen, len - hlen);
	memcpy(b + 24, &crc, 4);
	fix_head(b);
}

static void
test_vectors(void)
{
	static const uint32_t other[4] = { 1, 2, 3, 4 };
	struct vecseg_out out;
	struct vecseg_info info;
	struct vector_arrays a, m;
	struct segment_part parts[1 + VECSEG_PARTS];
	struct lexindex_hit h1[10], h2[10];
	struct vecindex	*x, *y;
	struct stat	 st;
	unsigned char	*b, *c;
	uint64_t	 off, slen, v;
	float		 query[TV_DIM];
	char		 path[512], path2[512], why[128], longname[VECSEG_MODEL_MAX + 1];
	size_t		 len, n1, n2, i, entry;
	int		 same;

	if ((x = tv_make()) == NULL) {
		ok(0, "a vector index");
		return;
	}
	ok(vecseg_parts(x, "emb-test", 4242, &out) == 0, "the vector parts");
	parts[0] = (struct segment_part){ 1, 4, other, 4 };	/* another section first */
	memcpy(parts + 1, out.part, sizeof(out.part));
	ok(segment_write(dir, "v.seg", parts, 1 + VECSEG_PARTS) == 0, "written with vectors");
	snprintf(path, sizeof(path), "%s/v.seg", dir);
	y = vecseg_map(path, &info, why, sizeof(why));
	ok(y != NULL, "vectors mapped (%s)", why);
	if (y == NULL)
		return;
	stat(path, &st);
	ok(strcmp(info.model, "emb-test") == 0 && info.embed_version == 4242 &&
	    info.n == TV_N && info.dim == TV_DIM && info.ino == st.st_ino &&
	    vecseg_same_file(path, &info), "model, embed version, sizes and file kept");
	ok(vector_index_wrapped(y) && vector_index_count(y) == TV_N &&
	    vector_index_dim(y) == TV_DIM, "a mapped index of the rows");
	vector_index_arrays(x, &a);
	vector_index_arrays(y, &m);
	ok(m.stride == a.stride && memcmp(m.q, a.q, a.n * a.stride) == 0 &&
	    memcmp(m.scale, a.scale, a.n * 4) == 0 && memcmp(m.f, a.f, a.n * a.dim * 4) == 0 &&
	    memcmp(m.ids, a.ids, a.n * 8) == 0 && memcmp(m.docs, a.docs, a.n * 8) == 0 &&
	    memcmp(m.tokens, a.tokens, a.n * 4) == 0, "every array round trips");
	ok((uintptr_t)m.q % 64 == 0 && (uintptr_t)m.f % 64 == 0, "rows aligned in the mapping");
	for (i = 0; i < TV_DIM; i++)
		query[i] = (float)(i % 9) - 4.0f;
	same = vector_index_search(x, query, TV_DIM, 10, h1, &n1) == 0 &&
	    vector_index_search(y, query, TV_DIM, 10, h2, &n2) == 0 && n1 == 10 && n2 == n1;
	for (i = 0; same && i < n1; i++)
		same = h1[i].id == h2[i].id && h1[i].doc == h2[i].doc &&
		    h1[i].tokens == h2[i].tokens && h1[i].score == h2[i].score;
	ok(same, "the mapped vectors rank exactly as the index they were written from");
	vector_index_free(y);

	/* A segment without vector sections. */
	ok(segment_write(dir, "nov.seg", parts, 1) == 0, "written without vectors");
	snprintf(path2, sizeof(path2), "%s/nov.seg", dir);
	y = vecseg_map(path2, &info, why, sizeof(why));
	ok(y == NULL && errno == ENODATA && strstr(why, "no vector sections") != NULL &&
	    info.ino != 0, "no vector sections: said so, the file's identity kept");
	y = vecseg_map("/nonexistent/v.seg", &info, why, sizeof(why));
	ok(y == NULL && errno == ENOENT && info.ino == 0, "no file: ENOENT");

	/* Replaced: a new file renamed over the name is another file. */
	y = vecseg_map(path, &info, why, sizeof(why));
	ok(segment_write(dir, "v.seg", parts, 1 + VECSEG_PARTS) == 0 &&
	    y != NULL && !vecseg_same_file(path, &info), "a rewritten segment is seen as new");
	vector_index_free(y);

	/* Damage. */
	if (slurp(path, &b, &len) == -1)
		return;
	c = malloc(len);
	snprintf(path2, sizeof(path2), "%s/vbad.seg", dir);

	memcpy(c, b, len);
	off = section_off(c, 0x102, &slen, &entry);	/* the scales */
	c[off + 5] ^= 0x10;
	spill(path2, c, len);
	vec_refused(path2, "body checksum", "a corrupt vectors section");

	spill(path2, b, len - 64);
	vec_refused(path2, "truncated", "a truncated file");
	off = section_off(b, 0x103, &slen, &entry);	/* cut inside the float32 rows */
	spill(path2, b, off + 100);
	vec_refused(path2, "truncated", "a file cut inside the vectors");

	/* Well-checksummed lies. */
	memcpy(c, b, len);
	off = section_off(c, 0x100, &slen, &entry);	/* the meta: n one more */
	memcpy(&v, c + off, 8);
	v++;
	memcpy(c + off, &v, 8);
	fix_all(c, len);
	spill(path2, c, len);
	vec_refused(path2, "wrong size", "more rows than the sections hold");

	memcpy(c, b, len);
	off = section_off(c, 0x100, &slen, &entry);	/* dim 8193 */
	v = VECTOR_MAX_DIM + 1;
	memcpy(c + off + 8, &v, 8);
	fix_all(c, len);
	spill(path2, c, len);
	vec_refused(path2, "dimensions", "a dimension past the limit");

	memcpy(c, b, len);
	off = section_off(c, 0x100, &slen, &entry);	/* a stride that is not dim's */
	v = 64;
	memcpy(c + off + 16, &v, 8);
	fix_all(c, len);
	spill(path2, c, len);
	vec_refused(path2, "dimensions", "a wrong stride");

	memcpy(c, b, len);
	off = section_off(c, 0x100, &slen, &entry);	/* the model's name unterminated */
	memset(c + off + 32, 'm', VECSEG_MODEL_MAX);
	fix_all(c, len);
	spill(path2, c, len);
	vec_refused(path2, "not terminated", "an unterminated model name");

	memcpy(c, b, len);
	off = section_off(c, 0x105, &slen, &entry);	/* the docs a row shorter */
	slen -= 8;
	memcpy(c + entry + 16, &slen, 8);
	fix_head(c);
	spill(path2, c, len);
	vec_refused(path2, "wrong size", "a section shorter than the rows");

	memcpy(c, b, len);
	off = section_off(c, 0x104, &slen, &entry);	/* two ids the same */
	memcpy(c + off + 8, c + off, 8);
	fix_all(c, len);
	spill(path2, c, len);
	vec_refused(path2, "ascending", "snippet ids out of order");

	/* Parts refused when the model's name does not fit. */
	memset(longname, 'x', sizeof(longname));
	longname[VECSEG_MODEL_MAX] = '\0';
	ok(vecseg_parts(x, longname, 1, &out) == -1 && errno == EINVAL,
	    "a model name too long");
	free(b);
	free(c);
	vector_index_free(x);
	free(tv_q);
	free(tv_f);
}

/* A fetch: puts a new file at dir/f.seg (written, renamed over the name); counts its calls. */
static int fetches;

static int
fetch_put(void *arg)
{
	char	 tmp[256], path[256];
	int	 fd;

	fetches++;
	if (arg != NULL) {
		errno = EBADMSG;	/* a fetch that fails */
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s/.f.seg.%ld.tmp", dir, (long)getpid());
	snprintf(path, sizeof(path), "%s/f.seg", dir);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0640)) == -1)
		return -1;
	if (write(fd, "fetched", 7) != 7 || close(fd) == -1)
		return -1;
	return rename(tmp, path);
}

static ino_t
ino_of(const char *path)
{
	struct stat	 st;

	return stat(path, &st) == 0 ? st.st_ino : 0;
}

/*
 * A child that holds dir/.f.seg.lock as a fetching process does for hold_ms, then (put) puts
 * the new file and removes the lock as segment_fetch_once does; its pid. The parent
 * returns once the child holds the lock.
 */
static pid_t
holder(long hold_ms, int put)
{
	char	 lock[256], c;
	int	 p[2], fd;
	pid_t	 pid;

	if (pipe(p) == -1 || (pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		snprintf(lock, sizeof(lock), "%s/.f.seg.lock", dir);
		fd = open(lock, O_RDWR | O_CREAT, 0640);
		if (fd == -1 || flock(fd, LOCK_EX) == -1)
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		usleep((useconds_t)hold_ms * 1000);
		if (put && fetch_put(NULL) == -1)
			_exit(1);
		unlink(lock);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

static void
test_fetch_once(void)
{
	char	 path[256], lock[256];
	ino_t	 ino;
	pid_t	 pid;
	int	 st;

	snprintf(path, sizeof(path), "%s/f.seg", dir);
	snprintf(lock, sizeof(lock), "%s/.f.seg.lock", dir);
	fetches = 0;
	ok(segment_fetch_once(dir, "f.seg", 1000, fetch_put, NULL) == 0 && fetches == 1 &&
	    access(path, F_OK) == 0, "fetch once: the fetch runs and puts the file");
	ok(access(lock, F_OK) == -1, "... the lock file removed");
	ino = ino_of(path);
	ok(segment_fetch_once(dir, "f.seg", 1000, fetch_put, NULL) == 0 && fetches == 2 &&
	    ino_of(path) != ino, "a file there already: fetched again, renamed over it");
	errno = 0;
	ok(segment_fetch_once(dir, "f.seg", 1000, fetch_put, "fail") == -1 &&
	    errno == EBADMSG && fetches == 3, "a failed fetch: -1 with its errno");
	ok(access(lock, F_OK) == -1, "... the lock file removed");
	ok(segment_fetch_once(dir, "../f.seg", 1000, fetch_put, NULL) == -1 &&
	    errno == EINVAL && fetches == 3, "a name with a slash is refused");

	/* another process fetching the name: this one waits and takes its file */
	ino = ino_of(path);
	fetches = 0;
	ok((pid = holder(1000, 1)) > 0, "another process fetches f.seg (for 1 s)");
	ok(segment_fetch_once(dir, "f.seg", 10000, fetch_put, NULL) == 0 && fetches == 0,
	    "... this one waits for it and does not fetch again");
	ok(ino_of(path) != ino, "... the other's new file is there");
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "... the other process is done");

	/* another process holding the lock past the wait: given up */
	ok((pid = holder(2000, 0)) > 0, "another process fetches f.seg (for 2 s)");
	errno = 0;
	ok(segment_fetch_once(dir, "f.seg", 200, fetch_put, NULL) == -1 &&
	    errno == ETIMEDOUT && fetches == 0, "... a 200 ms wait gives up: ETIMEDOUT");
	ok(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "... the other process is done");
	ok(access(lock, F_OK) == -1, "no lock file left");
	unlink(path);

	/* a library's older versions go, nothing else */
	{
		static const char *const names[] = { "7-3.seg", "7-5.seg", "7-9.seg",
		    "7-12.seg", "17-3.seg", "70-1.seg", "8-2.seg", "7-x.seg", "7-3.seg.bak",
		    "x7-3.seg" };
		size_t	 i;
		int	 gone;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			spill(path, (const unsigned char *)"x", 1);
		}
		ok(segment_remove_older(dir, 7, 9) == 2, "library 7 at version 9: two removed");
		for (i = gone = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			if (access(path, F_OK) == -1)
				gone |= 1 << i;
			unlink(path);
		}
		ok(gone == 3, "... 7-3.seg and 7-5.seg: not 7-9, 7-12, other libraries', other "
		    "files (%#x)", gone);
	}
	/* the local copies' folder (".db"): older versions, then the budget, oldest first */
	{
		static const char *const names[] = { "7-3.db", "7-9.db", "8-1.db", "9-1.db",
		    "7-3.seg" };
		struct timespec	 ts[2];
		size_t	 i, left;
		long long lbytes;
		int	 gone;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			spill(path, (const unsigned char *)"0123456789", 10);
			/* modified i hours ago: 7-3.db the most recent, 9-1.db the oldest */
			ts[0].tv_sec = ts[1].tv_sec = time(NULL) - 3600 * (long)i;
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
			utimensat(AT_FDCWD, path, ts, 0);
		}
		ok(segment_remove_older_as(dir, ".db", 7, 9) == 1, "copies: 7-3.db removed");
		snprintf(path, sizeof(path), "%s/7-3.seg", dir);
		ok(access(path, F_OK) == 0, "... not 7-3.seg");
		ok(segment_bound_folder(dir, ".db", 30, NULL, &left, &lbytes) == 0 && left == 3 &&
		    lbytes == 30, "30 bytes hold the three, counted");
		ok(segment_bound_folder(dir, ".db", 15, "9-1.db", &left, &lbytes) == 2 &&
		    left == 1 && lbytes == 10, "15 bytes: two removed, not the one kept");
		for (i = gone = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			if (access(path, F_OK) == -1)
				gone |= 1 << i;
			unlink(path);
		}
		ok(gone == 7, "... the oldest but the one kept: 7-9.db, 8-1.db (%#x)", gone);
		ok(segment_bound_folder(dir, ".db", 0, NULL, NULL, NULL) == 0, "an empty folder: none");
		ok(segment_bound_folder("/nonexistent/copies", ".db", 0, NULL, NULL, NULL) == 0,
		    "no folder: none");
	}
}

/* The lines a query worker writes to its copier (search/copier.h), read back. */
static void
test_copy_asked(void)
{
	char		 id[512], big[700];
	long long	 iv = 0, no = 0;
	static const char nul[] = "3 7 /a\0b";

	ok(search_copy_asked("12 345 /acme/notes", 18, &no, id, sizeof(id), &iv) == 0 &&
	    strcmp(id, "/acme/notes") == 0 && iv == 345 && no == 12, "a worker's ask read back");
	ok(search_copy_asked("12 345 /acme/notes/v1 x", 23, &no, id, sizeof(id), &iv) == 0 &&
	    strcmp(id, "/acme/notes/v1 x") == 0, "the id is the rest of the line");
	ok(search_copy_asked("12 345", 6, &no, id, sizeof(id), &iv) == -1 &&
	    search_copy_asked("12 345 ", 7, &no, id, sizeof(id), &iv) == -1,
	    "refused: no id");
	ok(search_copy_asked("0 345 /a", 8, &no, id, sizeof(id), &iv) == -1 &&
	    search_copy_asked("12 -1 /a", 8, &no, id, sizeof(id), &iv) == -1 &&
	    search_copy_asked("x 1 /a", 6, &no, id, sizeof(id), &iv) == -1 &&
	    search_copy_asked(" 1 /a", 5, &no, id, sizeof(id), &iv) == -1,
	    "refused: a number that is not a positive one");
	ok(search_copy_asked("1 99999999999999999999999 /a", 28, &no, id, sizeof(id), &iv) == -1,
	    "refused: a number out of range");
	ok(search_copy_asked(nul, sizeof(nul) - 1, &no, id, sizeof(id), &iv) == -1,
	    "refused: a NUL in the id");
	memset(big, 'a', sizeof(big));
	memcpy(big, "1 2 /", 5);
	ok(search_copy_asked(big, sizeof(big), &no, id, sizeof(id), &iv) == -1,
	    "refused: an id longer than its buffer");
}

/* The names of segments and local copies read back (segment_name_parse). */
static void
test_name_parse(void)
{
	long long	 no = 0, iv = 0;

	ok(segment_name_parse("12-345.db", ".db", &no, &iv) == 0 && no == 12 && iv == 345,
	    "a copy's name read back");
	ok(segment_name_parse("12-345.seg", ".db", &no, &iv) == -1 &&
	    segment_name_parse(".12-345.db.77.tmp", ".db", &no, &iv) == -1 &&
	    segment_name_parse("12-345.db.lock", ".db", &no, &iv) == -1 &&
	    segment_name_parse("-1-345.db", ".db", &no, &iv) == -1 &&
	    segment_name_parse("12-.db", ".db", &no, &iv) == -1,
	    "refused: another suffix, a temporary or lock file, a sign, no number");
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

	test_copy_asked();
	test_name_parse();
	ok(segment_crc32c(0, "123456789", 9) == 0xe3069283u,
	    "CRC-32C of the check string");
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

	test_vectors();
	test_fetch_once();

	free(b);
	free(c);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ok(system(path) == 0, "cleanup");
	return tap_done();
}
