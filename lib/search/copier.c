/* search/copier.c: a node's copier (search/copier.h). */
#include "config.h"

#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sandbox.h"
#include "base/util.h"
#include "search/copier.h"
#include "search/search.h"
#include "search/segment.h"
#include "store/db.h"
#include "store/localcopy.h"

/* Copies asked for and not built yet: more are dropped (the workers ask again). */
#define COPIER_QUEUE_MAX	1024
/* How long the copier sleeps with nothing to build before it looks at its pipe again. */
#define COPIER_POLL_MS		250
/* At most one look at the libraries' versions (after a change) in this many ms. */
#define COPIER_SCAN_GAP_MS	1000
/* The copier's nice value: the workers' questions come first. */
#define COPIER_NICE		10
/*
 * Copies built ahead (copier_scan): of every library the node has none of, while the
 * folder stays under half its budget (the rest is for the copies questions ask for),
 * counting COPIER_AHEAD_BYTES a snippet (measured: 0.74 KB; bench/README.md).
 */
#define COPIER_AHEAD_SHARE	2
#define COPIER_AHEAD_BYTES	1024
/* Libraries listed to build ahead at a scan; the others at the next, once these are built. */
#define COPIER_AHEAD_MAX	4096
/*
 * Copies are built ahead only once the libraries have not changed for this many ms: an
 * import or a node's first indexing of many libraries runs undisturbed by the copier's
 * reads (each of which costs the database as much as a question of every snippet), and
 * its copies are built after; but none waits more than COPIER_AHEAD_WAIT_MS (libraries that
 * never stop changing). New versions of copies held are built at once.
 */
#define COPIER_AHEAD_QUIET_MS	5000
#define COPIER_AHEAD_WAIT_MS	60000

struct copier_want {
	char		 id[512];
	long long	 lib_no;	/* the library's (an id may name another one later) */
	long long	 index_version;
	long		 snippets;	/* an ahead one's, at the scan */
};

struct copier {
	struct db	*db;
	struct search	*s;
	struct copier_want *q;		/* a ring of COPIER_QUEUE_MAX */
	size_t		 head, n;
	char		 buf[8 * SEARCH_COPY_ASK_MAX];	/* what the pipe gave, past the last line */
	size_t		 nbuf;
	int		 skip;		/* dropping an overlong line up to its newline */
	unsigned long	 libs_gen;	/* DB_CACHE_LIBRARIES's at the last scan */
	long long	 scanned_ms;
	unsigned long	 seen_gen;	/* DB_CACHE_LIBRARIES's last seen, and since when */
	long long	 changed_ms;
	long long	 ahead_since;	/* since when copies are waiting to be built ahead */
	/* the copies in the folder at a scan: their lib_no and index_version, by lib_no */
	struct copier_held {
		long long	 lib_no, index_version;
	}		*held;
	size_t		 nheld, capheld;
	long long	 held_bytes;	/* their size, and the ahead ones built since */
	/* the libraries the node has no copy of, to build ahead (copier_scan): COPIER_AHEAD_MAX */
	struct copier_want *ahead;
	size_t		 nahead, nextahead;
	int		 ahead_more;	/* the list was full: scan again once it is done */
	int		 ahead_fd;	/* the node's ahead lock, held: this copier builds ahead */
	size_t		 dropped;	/* asks dropped since the last log line */
};

static volatile sig_atomic_t copier_stop;

static void
copier_on_signal(int sig)
{
	copier_stop = 1;
}

/* Queues (id, index_version) unless it is queued already or the queue is full. */
static void
copier_want(struct copier *c, long long lib_no, const char *id, long long index_version)
{
	struct copier_want *w;
	size_t		 i;

	for (i = 0; i < c->n; i++) {
		w = &c->q[(c->head + i) % COPIER_QUEUE_MAX];
		if (w->index_version == index_version && strcmp(w->id, id) == 0)
			return;
	}
	if (c->n == COPIER_QUEUE_MAX || strlen(id) >= sizeof(w->id)) {
		c->dropped++;
		return;
	}
	w = &c->q[(c->head + c->n) % COPIER_QUEUE_MAX];
	snprintf(w->id, sizeof(w->id), "%s", id);
	w->lib_no = lib_no;
	w->index_version = index_version;
	c->n++;
}

/* Takes the lines the workers wrote (search_copy_asked) into the queue. */
static void
copier_read(struct copier *c, int fd)
{
	char		 id[512], *nl, *p;
	long long	 lib_no, iv;
	ssize_t		 got;

	for (;;) {
		got = read(fd, c->buf + c->nbuf, sizeof(c->buf) - c->nbuf);
		if (got <= 0)
			break;
		c->nbuf += (size_t)got;
		p = c->buf;
		while ((nl = memchr(p, '\n', c->nbuf - (size_t)(p - c->buf))) != NULL) {
			if (!c->skip && search_copy_asked(p, (size_t)(nl - p), &lib_no, id,
			    sizeof(id), &iv) == 0)
				copier_want(c, lib_no, id, iv);
			else if (!c->skip)
				log_warn("copier: a line not understood from a worker: ignored");
			c->skip = 0;
			p = nl + 1;
		}
		c->nbuf -= (size_t)(p - c->buf);
		memmove(c->buf, p, c->nbuf);
		if (c->nbuf == sizeof(c->buf)) {
			/* no line is this long: drop it up to its end */
			c->nbuf = 0;
			c->skip = 1;
		}
	}
	if (c->dropped > 0) {
		log_warn("copier: %zu asks dropped (%d copies already asked for)", c->dropped,
		    COPIER_QUEUE_MAX);
		c->dropped = 0;
	}
}

/* Builds w's library's copy of its current version. */
static void
copier_build(struct copier *c, const struct copier_want *w)
{
	struct search_lib lib;

	if (search_library(c->s, w->id, &lib) != SEARCH_LIB_READY || lib.lib_no != w->lib_no)
		return;		/* gone, not indexed any more, or deleted and made again */
	if (lib.index_version < w->index_version)
		return;		/* asked by a worker that saw a newer version: not yet here */
	/* failures are logged; ETIMEDOUT: another copier of the node builds it */
	(void)search_copy_build(c->s, &lib);
}

/* Builds the copy at the queue's head. */
static void
copier_build_next(struct copier *c)
{
	struct copier_want w = c->q[c->head];

	c->head = (c->head + 1) % COPIER_QUEUE_MAX;
	c->n--;
	copier_build(c, &w);
}

/* Whether a copy is due to be built ahead now (COPIER_AHEAD_QUIET_MS). */
static int
copier_ahead_due(struct copier *c)
{
	long long	 now;

	if (c->nextahead >= c->nahead) {
		c->ahead_since = 0;
		return 0;
	}
	now = util_now_ms();
	if (c->ahead_since == 0)
		c->ahead_since = now;
	return now - c->changed_ms >= COPIER_AHEAD_QUIET_MS ||
	    now - c->ahead_since >= COPIER_AHEAD_WAIT_MS;
}

/* Builds the next library's copy ahead, when the folder has room: 1, or 0 (none now). */
static int
copier_build_ahead(struct copier *c)
{
	const struct copier_want *w;
	long long	 budget, need;

	while (copier_ahead_due(c)) {
		w = &c->ahead[c->nextahead++];
		budget = search_copy_budget(c->s, w->snippets);
		need = (long long)w->snippets * COPIER_AHEAD_BYTES;
		/* copier_want_ahead listed only those that can have one (budget > 0) */
		if (c->held_bytes + need > budget / COPIER_AHEAD_SHARE) {
			c->ahead_more = 0;	/* no room: no more ahead until a change */
			continue;
		}
		c->held_bytes += need;
		copier_build(c, w);
		return 1;
	}
	return 0;
}

static int
copier_held_cmp(const void *a, const void *b)
{
	const struct copier_held *x = a, *y = b;

	return x->lib_no < y->lib_no ? -1 : x->lib_no > y->lib_no;
}

/* The copies in the folder into c->held, by lib_no: their number, or -1 (none: ENOENT). */
static long
copier_list_held(struct copier *c)
{
	char		 dir[1024];
	const char	*data = util_data_dir();
	struct dirent	*e;
	struct copier_held h, *more;
	struct stat	 st;
	DIR		*d;

	c->nheld = 0;
	c->held_bytes = 0;
	if (data == NULL || snprintf(dir, sizeof(dir), "%s/copies", data) >= (int)sizeof(dir))
		return -1;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) != NULL) {
		/* "<lib_no>-<index_version>.db"; temporary files start with a dot */
		if (segment_name_parse(e->d_name, ".db", &h.lib_no, &h.index_version) == -1 ||
		    h.lib_no < 1)
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) == 0)
			c->held_bytes += (long long)st.st_size;
		if (c->nheld == c->capheld) {
			size_t cap = c->capheld == 0 ? 64 : c->capheld * 2;

			if ((more = realloc(c->held, cap * sizeof(*more))) == NULL)
				break;
			c->held = more;
			c->capheld = cap;
		}
		c->held[c->nheld++] = h;
	}
	closedir(d);
	if (c->nheld > 1)
		qsort(c->held, c->nheld, sizeof(*c->held), copier_held_cmp);
	return (long)c->nheld;
}

/* Appends lib to the libraries to build ahead. */
static void
copier_want_ahead(struct copier *c, const struct localcopy_lib *lib)
{
	struct copier_want *w;

	if (lib->snippets < 1 || strlen(lib->id) >= sizeof(w->id) ||
	    search_copy_budget(c->s, lib->snippets) == 0)
		return;
	if (c->nahead == COPIER_AHEAD_MAX) {
		c->ahead_more = 1;
		return;
	}
	/* at the first one (its pages touched as they fill) */
	if (c->ahead == NULL && (c->ahead = calloc(COPIER_AHEAD_MAX, sizeof(*w))) == NULL)
		return;
	w = &c->ahead[c->nahead++];
	snprintf(w->id, sizeof(w->id), "%s", lib->id);
	w->lib_no = lib->lib_no;
	w->index_version = lib->index_version;
	w->snippets = lib->snippets;
}

/*
 * localcopy_libraries: a library the node holds a copy of, but not of its version, is due;
 * one it holds none of is built ahead by the copier that holds the node's ahead lock.
 */
static void
copier_compare(const struct localcopy_lib *lib, void *arg)
{
	struct copier	*c = arg;
	struct copier_held key, *h;
	size_t		 i;
	int		 older = 0;

	key.lib_no = lib->lib_no;
	if (c->nheld == 0 || (h = bsearch(&key, c->held, c->nheld, sizeof(*c->held),
	    copier_held_cmp)) == NULL) {
		if (c->ahead_fd != -1)
			copier_want_ahead(c, lib);
		return;
	}
	/* bsearch found one of the library's copies: look at all of them */
	i = (size_t)(h - c->held);
	while (i > 0 && c->held[i - 1].lib_no == lib->lib_no)
		i--;
	for (; i < c->nheld && c->held[i].lib_no == lib->lib_no; i++) {
		if (c->held[i].index_version == lib->index_version)
			return;		/* there already */
		older = 1;
	}
	if (older)
		copier_want(c, lib->lib_no, lib->id, lib->index_version);
}

/*
 * Takes the node's ahead lock (DATA_DIR/copies/.ahead.lock) unless this copier holds it:
 * of the node's copiers (ctxd-query's, ctxd-mcp's) one builds ahead; when it ends, the
 * kernel lets the lock go and another takes it at its next scan.
 */
static void
copier_take_ahead(struct copier *c)
{
	char		 path[1100];
	const char	*data = util_data_dir();
	int		 fd;

	if (c->ahead_fd != -1 || data == NULL || search_copy_budget(c->s, 0) == 0 ||
	    snprintf(path, sizeof(path), "%s/copies", data) >= (int)sizeof(path) ||
	    (mkdir(path, 0750) == -1 && errno != EEXIST) ||
	    snprintf(path, sizeof(path), "%s/copies/.ahead.lock", data) >= (int)sizeof(path))
		return;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640)) == -1) {
		log_warn("copier: %s: %s", path, strerror(errno));
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);	/* another copier of the node builds ahead */
		return;
	}
	c->ahead_fd = fd;
}

/*
 * At the start, then after a change of the libraries (at most once a COPIER_SCAN_GAP_MS):
 * queues the current version of each library the node holds an older copy of, and lists
 * those it holds none of to build ahead (copier_build_ahead, once the libraries are quiet:
 * COPIER_AHEAD_QUIET_MS), so that a node's questions find their copies from the first (a
 * node's start, a new library, an import). At most COPIER_AHEAD_MAX are listed: a full
 * list is followed by another scan once it is built.
 */
static void
copier_scan(struct copier *c)
{
	unsigned long	 gen = db_cache_gen(c->db, DB_CACHE_LIBRARIES);
	long long	 now = util_now_ms();

	if (gen != c->seen_gen) {
		c->seen_gen = gen;
		c->changed_ms = now;
	}
	if ((gen == c->libs_gen && c->scanned_ms != 0 &&
	    !(c->ahead_more && c->nextahead == c->nahead)) ||
	    now - c->scanned_ms < COPIER_SCAN_GAP_MS)
		return;
	c->libs_gen = gen;
	c->scanned_ms = now;
	c->nahead = c->nextahead = 0;
	c->ahead_more = 0;
	copier_take_ahead(c);
	/* nothing to compare when the node holds no copy and another copier builds ahead */
	if (copier_list_held(c) > 0 || (c->nheld == 0 && c->ahead_fd != -1))
		(void)localcopy_libraries(c->db, copier_compare, c);
}

int
copier_main(int fd)
{
	struct copier	 c;
	struct sigaction sa;
	struct pollfd	 pfd;
	pid_t		 parent = getppid();
	char		 err[256];
	int		 rc = 1;

	memset(&c, 0, sizeof(c));
	c.ahead_fd = -1;
	/* tests only: a copier that fails at its start (t/t0165-sandbox.sh) */
	if (getenv("CTXD_TEST_COPIER_FAIL") != NULL)
		return 1;
	/* what ps, top and bench/scale show it as */
	(void)prctl(PR_SET_NAME, "ctxd-copier", 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = copier_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	errno = 0;
	if (setpriority(PRIO_PROCESS, 0, COPIER_NICE) == -1)
		log_warn("copier: cannot lower its priority: %s", strerror(errno));
	if ((c.q = calloc(COPIER_QUEUE_MAX, sizeof(*c.q))) == NULL ||
	    db_open(util_data_dir(), DB_READONLY, &c.db) == -1 || db_listen(c.db) == -1 ||
	    (c.s = search_open(c.db)) == NULL)
		goto out;
	/* at the start, copies are built ahead at once (no change seen yet) */
	c.seen_gen = db_cache_gen(c.db, DB_CACHE_LIBRARIES);
	if (sandbox_wanted() && sandbox_install(err, sizeof(err)) == -1) {
		log_err("copier: %s (CTXD_SECCOMP=off runs without it)", err);
		goto out;
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (!copier_stop && getppid() == parent) {
		if (poll(&pfd, 1, c.n > 0 || copier_ahead_due(&c) ? 0 :
		    db_listening(c.db) ? COPIER_POLL_MS :
		    4 * COPIER_POLL_MS) == -1 && errno != EINTR)
			break;
		copier_read(&c, fd);
		if (!db_listening(c.db)) {
			c.n = 0;	/* SQLite: no copies */
			continue;
		}
		if (db_drain_changes(c.db) == -1)
			goto out;	/* its caches are gone with the connection */
		copier_scan(&c);
		if (c.n > 0)
			copier_build_next(&c);
		else
			(void)copier_build_ahead(&c);
	}
	rc = 0;
out:
	search_close(c.s);
	if (c.db != NULL)
		db_close(c.db);
	free(c.q);
	free(c.held);
	free(c.ahead);
	if (c.ahead_fd != -1)
		close(c.ahead_fd);
	return rc;
}
