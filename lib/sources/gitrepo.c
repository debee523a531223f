/* gitrepo.c: bare clones and fetches with libgit2, tree listing and blob reads. */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>
#include <git2.h>
#include <git2/sys/stream.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "net/fetch.h"
#include "sources/gitrepo.h"
#include "store/settings.h"

#define GITREPO_REMOTE	"origin"
#define GITREPO_REFSPEC	"+refs/heads/*:refs/remotes/origin/*"
/* Tags too: a library's versions may name tags. */
#define GITREPO_TAGSPEC	"+refs/tags/*:refs/tags/*"
#define GITREPO_MB	(1024 * 1024)
#define GITREPO_CONNECT_MS	30000	/* connect phase of one address (git.connect_timeout_s) */
#define GITREPO_STALL_MS	60000	/* the stall window (git.stall_timeout_s) */
/*
 * A transfer slower than this many bytes a second over a whole stall window is stalled: a
 * server that drips a byte now and then holds the worker as surely as a silent one. A
 * server computing a large pack sends progress lines (tens of bytes a second) meanwhile.
 */
#define GITREPO_LOW_SPEED	16

struct gitrepo {
	git_repository	*repo;
	char		 commit[GIT_OID_HEXSZ + 1];
	char		*branch;
	int		 credentials;	/* the server asked for the token and took it */
};

/* State shared with the libgit2 callbacks of one clone or fetch. */
struct gitrepo_ctx {
	const char	*url;
	const char	*user;
	const char	*token;
	const char	*plain_http_hosts;	/* may get the token over http */
	char		 host[256];	/* url's host (no brackets) and port: with a */
	char		 port[16];	/* token, the only place connected to */
	size_t		 max;		/* max_fetch_bytes, 0: unlimited */
	int		 ncred;		/* credential requests so far */
	int		 cred_given;	/* the token was handed over (asked for) */
	int		 auth_failed;
	int		 too_big;
	char		 refusal[512];	/* why a connection or the token was refused */
	/*
	 * The deadlines of the attempt: connecting to one address, the stall window (time
	 * spent waiting on the server, not on our own work, with the bytes it brought) and
	 * the job's deadline (util_now_ms clock, 0: none).
	 */
	long		 connect_ms, stall_ms;
	long long	 deadline_ms;
	long long	 win_waited;	/* ms waited on the server in this window */
	size_t		 win_bytes;	/* bytes received in this window */
	char		 expired[512];	/* which deadline ended the transfer */
};

/* ------------------------------------------------------------ the transport's sockets */

/*
 * libgit2 opens every connection of a clone or fetch through the registered standard
 * stream (https layers its TLS stream on it): this one resolves the host, asks the
 * address policy of lib/net/fetch.c about each address and connects to the first allowed
 * one that answers, so git and libcurl share one policy.
 */
struct gitrepo_stream {
	git_stream	 parent;
	char		*host;
	char		*port;
	int		 fd;
};

/* The sync in progress (one at a time per process): where a refusal is recorded. */
static struct gitrepo_ctx *gitrepo_cur;

/* "host" or "host:port" (the port unless it is 80 or 443), for messages. */
static void
gitrepo_stream_name(const struct gitrepo_stream *st, char *out, size_t outsz)
{
	if (strcmp(st->port, "80") == 0 || strcmp(st->port, "443") == 0)
		snprintf(out, outsz, "%s", st->host);
	else
		snprintf(out, outsz, "%s:%s", st->host, st->port);
}

/* Connects a socket to ai within timeout_ms; the socket, or -1 with errno. */
static int
gitrepo_connect_one(const struct addrinfo *ai, long timeout_ms)
{
	struct pollfd	 pfd;
	socklen_t	 len = sizeof(int);
	int		 fd, flags, e = 0;

	if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    ai->ai_protocol)) == -1)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == -1) {
		if (errno != EINPROGRESS)
			goto fail;
		pfd.fd = fd;
		pfd.events = POLLOUT;
		while ((e = poll(&pfd, 1, (int)timeout_ms)) == -1 && errno == EINTR)
			continue;
		if (e <= 0) {
			errno = e == 0 ? ETIMEDOUT : errno;
			goto fail;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
			goto fail;
		if (e != 0) {
			errno = e;
			goto fail;
		}
	}
	if ((flags = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, flags &
	    ~O_NONBLOCK) == -1)
		goto fail;
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Starts a new stall window (c may be NULL: no sync in progress). */
static void
gitrepo_window(struct gitrepo_ctx *c)
{
	if (c != NULL) {
		c->win_waited = 0;
		c->win_bytes = 0;
	}
}

/*
 * 1 when a deadline of the transfer has passed, with c->expired saying which (name: the
 * server's "host[:port]") and libgit2's error set: the job's, or the stall window's (the
 * server sent too little while we waited on it). Once passed, it stays passed.
 */
static int
gitrepo_expire(struct gitrepo_ctx *c, const char *name)
{
	long	 s = c->stall_ms / 1000;

	if (c->expired[0] != '\0')
		;
	else if (c->deadline_ms > 0 && util_now_ms() >= c->deadline_ms)
		snprintf(c->expired, sizeof(c->expired), "the job's time ran out (setting "
		    "limits.job_timeout_s) while fetching from %s", name);
	else if (c->win_waited < c->stall_ms)
		return 0;
	else if (c->win_bytes == 0)
		snprintf(c->expired, sizeof(c->expired), "%s sent nothing for %ld s "
		    "(setting git.stall_timeout_s)", name, s);
	else
		snprintf(c->expired, sizeof(c->expired), "%s sent only %zu bytes in %ld s, "
		    "less than %d bytes a second (setting git.stall_timeout_s)", name,
		    c->win_bytes, s, GITREPO_LOW_SPEED);
	git_error_set_str(GIT_ERROR_NET, c->expired);
	return 1;
}

/*
 * The time connecting to one address may take: git.connect_timeout_s, or what is left
 * before the job's deadline when that is less.
 */
static long
gitrepo_connect_ms(const struct gitrepo_ctx *c)
{
	long long	 left;

	if (c == NULL)
		return GITREPO_CONNECT_MS;
	if (c->deadline_ms > 0 && (left = c->deadline_ms - util_now_ms()) < c->connect_ms)
		return left > 0 ? (long)left : 1;
	return c->connect_ms;
}

/*
 * Waits until the stream's socket is ready for events (POLLIN, POLLOUT), within the
 * deadlines of the sync in progress: 0, or -1 with libgit2's error set. The time waited
 * counts against the stall window; our own work between reads does not.
 */
static int
gitrepo_wait(struct gitrepo_stream *st, short events)
{
	struct gitrepo_ctx	*c = gitrepo_cur;
	struct pollfd		 pfd;
	long long		 wait, left, t0;
	char			 name[300];
	int			 n;

	if (c == NULL)
		return 0;
	gitrepo_stream_name(st, name, sizeof(name));
	pfd.fd = st->fd;
	pfd.events = events;
	for (;;) {
		if (gitrepo_expire(c, name))
			return -1;
		wait = c->stall_ms - c->win_waited;
		if (c->deadline_ms > 0 && (left = c->deadline_ms - util_now_ms()) < wait)
			wait = left;
		t0 = util_now_ms();
		n = poll(&pfd, 1, wait > 0 ? (int)wait : 0);
		c->win_waited += util_now_ms() - t0;
		if (n > 0)
			return 0;
		if (n == -1 && errno != EINTR) {
			git_error_set_str(GIT_ERROR_NET, "error waiting for the server");
			return -1;
		}
	}
}

static int
gitrepo_stream_connect(git_stream *s)
{
	struct gitrepo_stream	*st = (struct gitrepo_stream *)s;
	const struct fetch_policy *pol = fetch_policy_current();
	struct addrinfo		 hints, *res = NULL, *ai;
	char			 refused[INET6_ADDRSTRLEN] = "", name[300], msg[512];
	int			 fd = -1, e, tried = 0, saved = 0;

	gitrepo_stream_name(st, name, sizeof(name));
	/*
	 * libgit2 keeps the credentials of a server across a redirect and asks the
	 * callback with the first URL: with a token, nothing but the repository's own
	 * host and port is connected to, so the token cannot follow a redirect.
	 */
	if (gitrepo_cur != NULL && gitrepo_cur->token != NULL &&
	    (strcasecmp(st->host, gitrepo_cur->host) != 0 ||
	    strcmp(st->port, gitrepo_cur->port) != 0)) {
		snprintf(gitrepo_cur->refusal, sizeof(gitrepo_cur->refusal),
		    "the server redirected to %s: with a git token for the repository's "
		    "host, no other host or port is connected to", name);
		git_error_set_str(GIT_ERROR_NET, gitrepo_cur->refusal);
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(st->host, st->port, &hints, &res)) != 0) {
		snprintf(msg, sizeof(msg), "failed to resolve address for %s: %s", st->host,
		    gai_strerror(e));
		git_error_set_str(GIT_ERROR_NET, msg);
		return -1;
	}
	for (ai = res; ai != NULL && fd == -1; ai = ai->ai_next) {
		if (pol != NULL && !fetch_policy_allow((void *)(uintptr_t)pol, ai->ai_addr,
		    ai->ai_addrlen)) {
			fetch_addr_text(ai->ai_addr, refused, sizeof(refused));
			continue;
		}
		tried = 1;
		if (gitrepo_cur != NULL && gitrepo_expire(gitrepo_cur, name))
			break;
		if ((fd = gitrepo_connect_one(ai, gitrepo_connect_ms(gitrepo_cur))) == -1)
			saved = errno;
	}
	freeaddrinfo(res);
	if (fd != -1) {
		st->fd = fd;
		gitrepo_window(gitrepo_cur);	/* the server's answer: a window of its own */
		return 0;
	}
	if (gitrepo_cur != NULL && (gitrepo_cur->expired[0] != '\0' ||
	    gitrepo_expire(gitrepo_cur, name))) {
		git_error_set_str(GIT_ERROR_NET, gitrepo_cur->expired);
		return -1;
	}
	if (tried && saved == ETIMEDOUT && gitrepo_cur != NULL) {
		snprintf(gitrepo_cur->expired, sizeof(gitrepo_cur->expired), "no "
		    "connection to %s within %ld s (setting git.connect_timeout_s)", name,
		    gitrepo_cur->connect_ms / 1000);
		git_error_set_str(GIT_ERROR_NET, gitrepo_cur->expired);
		return -1;
	}
	if (!tried) {
		snprintf(msg, sizeof(msg), "address %s of host %s is not allowed by "
		    FETCH_POLICY_SETTING, refused, name);
		if (gitrepo_cur != NULL)
			snprintf(gitrepo_cur->refusal, sizeof(gitrepo_cur->refusal), "%s",
			    msg);
	} else
		snprintf(msg, sizeof(msg), "failed to connect to %s: %s", name,
		    strerror(saved));
	git_error_set_str(GIT_ERROR_NET, msg);
	return -1;
}

static ssize_t
gitrepo_stream_read(git_stream *s, void *data, size_t len)
{
	struct gitrepo_stream	*st = (struct gitrepo_stream *)s;
	struct gitrepo_ctx	*c = gitrepo_cur;
	ssize_t			 n;

	do {
		if (gitrepo_wait(st, POLLIN) == -1)
			return -1;
	} while ((n = recv(st->fd, data, len, MSG_DONTWAIT)) == -1 && (errno == EINTR ||
	    errno == EAGAIN || errno == EWOULDBLOCK));
	if (n == -1)
		git_error_set_str(GIT_ERROR_NET, "error receiving data from the server");
	else if (c != NULL) {
		/* Enough bytes for a window at the lowest speed: a new window begins. */
		c->win_bytes += (size_t)n;
		if (c->win_bytes >= (size_t)(c->stall_ms / 1000 > 0 ? c->stall_ms / 1000 :
		    1) * GITREPO_LOW_SPEED)
			gitrepo_window(c);
	}
	return n;
}

static ssize_t
gitrepo_stream_write(git_stream *s, const char *data, size_t len, int flags)
{
	struct gitrepo_stream	*st = (struct gitrepo_stream *)s;
	ssize_t			 n;

	(void)flags;
	do {
		if (gitrepo_wait(st, POLLOUT) == -1)
			return -1;
	} while ((n = send(st->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT)) == -1 &&
	    (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK));
	if (n == -1)
		git_error_set_str(GIT_ERROR_NET, "error sending data to the server");
	else	/* the server took the request: it has a window to answer */
		gitrepo_window(gitrepo_cur);
	return n;
}

static int
gitrepo_stream_close(git_stream *s)
{
	struct gitrepo_stream	*st = (struct gitrepo_stream *)s;
	int			 rc = 0;

	if (st->fd != -1 && close(st->fd) == -1)
		rc = -1;
	st->fd = -1;
	return rc;
}

static void
gitrepo_stream_free(git_stream *s)
{
	struct gitrepo_stream	*st = (struct gitrepo_stream *)s;

	if (st == NULL)
		return;
	if (st->fd != -1)
		close(st->fd);
	free(st->host);
	free(st->port);
	free(st);
}

/* git_stream_registration.init: a stream to host:port, not connected yet. */
static int
gitrepo_stream_new(git_stream **out, const char *host, const char *port)
{
	struct gitrepo_stream	*st;

	*out = NULL;
	if ((st = calloc(1, sizeof(*st))) == NULL || (st->host = strdup(host)) == NULL ||
	    (st->port = strdup(port)) == NULL) {
		if (st != NULL)
			free(st->host);
		free(st);
		git_error_set_oom();
		return -1;
	}
	st->fd = -1;
	st->parent.version = GIT_STREAM_VERSION;
	st->parent.connect = gitrepo_stream_connect;
	st->parent.read = gitrepo_stream_read;
	st->parent.write = gitrepo_stream_write;
	st->parent.close = gitrepo_stream_close;
	st->parent.free = gitrepo_stream_free;
	*out = &st->parent;
	return 0;
}

/* Makes gitrepo_stream_new libgit2's standard stream (after each git_libgit2_init). */
static int
gitrepo_stream_register(void)
{
	static git_stream_registration reg = { GIT_STREAM_VERSION, gitrepo_stream_new, NULL };

	return git_stream_register(GIT_STREAM_STANDARD, &reg);
}

/*
 * The libgit2 callbacks' check: 1, with the error set, once a deadline of the transfer has
 * passed (the stream's stall window, the job's deadline), so that libgit2 ends it even
 * where it does not read from the socket.
 */
static int
gitrepo_cb_expired(struct gitrepo_ctx *c)
{
	char	 name[300];

	if (c->expired[0] == '\0' && (c->deadline_ms == 0 || util_now_ms() < c->deadline_ms))
		return 0;
	if (*c->port == '\0' || strcmp(c->port, "80") == 0 || strcmp(c->port, "443") == 0)
		snprintf(name, sizeof(name), "%s", c->host);
	else
		snprintf(name, sizeof(name), "%s:%s", c->host, c->port);
	return gitrepo_expire(c, name);
}

/*
 * 1 when "host[:port]" hp may get the token over plain http: a comma-separated entry of
 * list is hp itself, or its host alone (any port).
 */
static int
gitrepo_plain_ok(const char *list, const char *hp)
{
	const char	*p = list != NULL ? list : "";
	size_t		 n;

	for (;;) {
		p += strspn(p, ", \t");
		if (*p == '\0')
			return 0;
		n = strcspn(p, ", \t");
		if (strncasecmp(p, hp, n) == 0 && (hp[n] == '\0' || (hp[n] == ':' &&
		    hp[n + 1] != '\0' && strspn(hp + n + 1, "0123456789") ==
		    strlen(hp + n + 1))))
			return 1;
		p += n;
	}
}

/*
 * Credentials callback: hands user/token over once. A second request means the server refused
 * them, and no token means there is nothing to offer: both end with GIT_EAUTH and a fresh error
 * text (libgit2 would otherwise report a misleading leftover). Over plain http the token
 * goes only to the hosts of git.plain_http_hosts. (libgit2 1.5 passes the remote's URL,
 * not the one a redirect led to: gitrepo_stream_connect keeps the token on that host.)
 */
static int
gitrepo_cred_cb(git_credential **out, const char *url, const char *user_from_url,
    unsigned int allowed, void *payload)
{
	struct gitrepo_ctx	*c = payload;
	const char		*user;
	char			 hp[300];

	if (gitrepo_cb_expired(c))
		return GIT_EUSER;
	if (c->token != NULL && strncasecmp(c->url, "http://", 7) == 0) {
		fetch_host(c->url, hp, sizeof(hp));
		if (!gitrepo_plain_ok(c->plain_http_hosts, hp)) {
			snprintf(c->refusal, sizeof(c->refusal), "the git token is not "
			    "sent over plain http to %s (list the host in "
			    "git.plain_http_hosts to allow it)", hp);
			git_error_set_str(GIT_ERROR_NET, c->refusal);
			return GIT_EAUTH;
		}
	}
	if (c->token == NULL || c->ncred++ > 0 ||
	    (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) == 0) {
		c->auth_failed = 1;
		git_error_set_str(GIT_ERROR_NET, "authentication failed");
		return GIT_EAUTH;
	}
	/* Hosts accept any user name with a token; GitHub documents this one. */
	if (c->user != NULL && *c->user != '\0')
		user = c->user;
	else if (user_from_url != NULL && *user_from_url != '\0')
		user = user_from_url;
	else
		user = "x-access-token";
	c->cred_given = 1;
	return git_credential_userpass_plaintext_new(out, user, c->token);
}

/* Aborts the transfer once more than the limit has come in, or past a deadline. */
static int
gitrepo_progress_cb(const git_indexer_progress *st, void *payload)
{
	struct gitrepo_ctx	*c = payload;

	if (gitrepo_cb_expired(c))
		return -1;
	if (c->max > 0 && st->received_bytes > c->max) {
		c->too_big = 1;
		git_error_set_str(GIT_ERROR_CALLBACK, "transfer size limit reached");
		return -1;
	}
	return 0;
}

/* The server's progress lines ("Counting objects"): the transfer ends past a deadline. */
static int
gitrepo_sideband_cb(const char *str, int len, void *payload)
{
	(void)str;
	(void)len;
	return gitrepo_cb_expired(payload) ? -1 : 0;
}

static void
gitrepo_callbacks(git_remote_callbacks *cb, struct gitrepo_ctx *c)
{
	cb->credentials = gitrepo_cred_cb;
	cb->transfer_progress = gitrepo_progress_cb;
	cb->sideband_progress = gitrepo_sideband_cb;
	cb->payload = c;
}

/*
 * Host (and port) of a URL for messages, without any user information: "https://u@h:8/x"
 * gives "h:8", "git@h:o/r" gives "h", a local path is returned as it is.
 */
static void
gitrepo_host(const char *url, char *out, size_t outsz)
{
	const char	*s, *e, *at;
	size_t		 n;

	if ((s = strstr(url, "://")) != NULL) {
		s += 3;
		e = s + strcspn(s, "/?#");
	} else if ((e = strchr(url, ':')) != NULL && e > url &&
	    memchr(url, '/', (size_t)(e - url)) == NULL) {
		s = url;		/* scp-like user@host:path */
	} else {
		snprintf(out, outsz, "%s", url);
		return;
	}
	for (at = s; at < e; at++)
		if (*at == '@')
			s = at + 1;
	n = (size_t)(e - s);
	snprintf(out, outsz, "%.*s", (int)(n < 255 ? n : 255), s);
}

/* 1 when the URL carries a password or token ("https://user:secret@host/..."). */
static int
gitrepo_url_has_secret(const char *url)
{
	const char	*s, *e, *at;

	if ((s = strstr(url, "://")) == NULL)
		return 0;
	s += 3;
	e = s + strcspn(s, "/?#");
	for (at = e; at > s && at[-1] != '@'; at--)
		;
	return at > s && memchr(s, ':', (size_t)(at - s)) != NULL;
}

/*
 * Copies msg to err scrubbed of the token (fetch_scrub: the token, its start of 8 bytes or
 * more and its base64 forms, as in a Basic Authorization header, become "[redacted]").
 */
static void
gitrepo_scrub(const char *msg, const char *token, char *err, size_t errsz)
{
	snprintf(err, errsz, "%s", msg);
	if (token != NULL && *token != '\0')
		fetch_scrub(err, errsz, token);
}

/*
 * Writes the user-facing message of a failed libgit2 call to err: size limit, authentication,
 * unreachable host, or libgit2's own text prefixed with what, all without the token. The
 * caller logs it.
 */
static void
gitrepo_fail(const struct gitrepo_ctx *c, int code, const char *url, const char *what,
    char *err, size_t errsz)
{
	const git_error	*e = git_error_last();
	const char	*msg = e != NULL && e->message != NULL ? e->message : "unknown error";
	char		 host[256], clean[512];

	gitrepo_host(url, host, sizeof(host));
	gitrepo_scrub(msg, c->token, clean, sizeof(clean));
	if (c->expired[0] != '\0')
		snprintf(err, errsz, "%s", c->expired);
	else if (c->refusal[0] != '\0')
		snprintf(err, errsz, "%s", c->refusal);
	else if (c->too_big) {
		if (c->max >= GITREPO_MB)
			snprintf(err, errsz, "repository is larger than the limit of %zu MB",
			    c->max / GITREPO_MB);
		else
			snprintf(err, errsz, "repository is larger than the limit of "
			    "%zu bytes", c->max);
	} else if (c->auth_failed || code == GIT_EAUTH ||
	    strstr(clean, "status code: 401") != NULL ||
	    strstr(clean, "authentication required") != NULL)
		snprintf(err, errsz, "authentication failed for %s: check the git token "
		    "in the settings", host);
	else if (strstr(clean, "status code: 404") != NULL)
		snprintf(err, errsz, "repository not found at %s (or the git token has "
		    "no access to it)", host);
	else if ((e != NULL && (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_SSL ||
	    e->klass == GIT_ERROR_HTTP || e->klass == GIT_ERROR_SSH)) ||
	    strncmp(clean, "failed to connect", 17) == 0 ||
	    strncmp(clean, "failed to resolve", 17) == 0)
		snprintf(err, errsz, "could not reach %s: %s", host, clean);
	else
		snprintf(err, errsz, "%s: %s", what, clean);
}

/* 1 when dir exists and holds nothing, 0 otherwise. */
static int
gitrepo_dir_empty(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	int		 empty = 1;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* nftw() has no payload: the folder to remove as well (single-threaded use). */
static const char *gitrepo_rm_root;

static int
gitrepo_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (ftw->level == 0 && gitrepo_rm_root == NULL)
		return 0;		/* keep a folder that was there before */
	if (remove(path) == -1)
		log_warn("gitrepo_rm: %s: %s", path, strerror(errno));
	return 0;
}

/* Removes what a failed first clone left in dir, and dir itself when we created it. */
static void
gitrepo_rm(const char *dir, int created)
{
	gitrepo_rm_root = created ? dir : NULL;
	nftw(dir, gitrepo_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	gitrepo_rm_root = NULL;
}

/* "refs/heads/x" -> malloc'd "x"; NULL for anything else. */
static char *
gitrepo_short_head(const char *ref)
{
	if (ref == NULL || strncmp(ref, "refs/heads/", 11) != 0 || ref[11] == '\0')
		return NULL;
	return strdup(ref + 11);
}

/* Branch that refs/remotes/origin/HEAD points to (recorded by an earlier sync), or NULL. */
static char *
gitrepo_origin_head(git_repository *repo)
{
	git_reference	*ref = NULL;
	const char	*t, *pfx = "refs/remotes/" GITREPO_REMOTE "/";
	char		*r = NULL;

	if (git_reference_lookup(&ref, repo, "refs/remotes/" GITREPO_REMOTE "/HEAD") != 0) {
		git_error_clear();
		return NULL;
	}
	if (git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC &&
	    (t = git_reference_symbolic_target(ref)) != NULL &&
	    strncmp(t, pfx, strlen(pfx)) == 0 && t[strlen(pfx)] != '\0')
		r = strdup(t + strlen(pfx));
	git_reference_free(ref);
	return r;
}

/* Points refs/remotes/origin/HEAD at the remote's default branch, as git clone does. */
static void
gitrepo_set_origin_head(git_repository *repo, const char *b)
{
	git_reference	*ref = NULL;
	struct buf	 t;

	buf_init(&t);
	if (buf_printf(&t, "refs/remotes/" GITREPO_REMOTE "/%s", b) == 0 &&
	    git_reference_symbolic_create(&ref, repo, "refs/remotes/" GITREPO_REMOTE
	    "/HEAD", t.p, 1, "sync: default branch") != 0) {
		log_warn("%s: %s", __func__, git_error_last() != NULL ?
		    git_error_last()->message : "unknown error");
		git_error_clear();
	}
	git_reference_free(ref);
	buf_release(&t);
}

/*
 * Resolves refs/remotes/origin/<b>, which every sync updates, or else the tag refs/tags/<b>,
 * to a commit; -1 if absent.
 */
static int
gitrepo_resolve(git_repository *repo, const char *b, git_oid *oid)
{
	git_reference	*ref = NULL;
	git_object	*obj = NULL;
	struct buf	 name;
	int		 valid, rc = -1;

	buf_init(&name);
	if (strncmp(b, "refs/heads/", 11) == 0)
		b += 11;
	if (buf_printf(&name, "refs/remotes/" GITREPO_REMOTE "/%s", b) == -1 ||
	    git_reference_name_is_valid(&valid, name.p) != 0 || !valid ||
	    strcmp(b, "HEAD") == 0)
		goto out;
	if (git_reference_lookup(&ref, repo, name.p) != 0) {
		git_error_clear();
		buf_reset(&name);
		if (buf_printf(&name, "refs/tags/%s", b) == -1 ||
		    git_reference_lookup(&ref, repo, name.p) != 0)
			goto out;
	}
	if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) != 0)
		goto out;
	git_oid_cpy(oid, git_object_id(obj));
	rc = 0;
out:
	if (rc == -1)
		git_error_clear();
	git_object_free(obj);
	git_reference_free(ref);
	buf_release(&name);
	return rc;
}

/*
 * Records url as origin in the clone's config, for people who look into it with git. The
 * fetch itself goes through an in-memory remote: libgit2 1.5.1 (Debian 12) leaks memory in
 * git_remote_lookup/git_remote_create, whose config regex search never frees its PCRE2
 * match data (fixed upstream by libgit2 pull request 6382).
 */
static int
gitrepo_config_origin(git_repository *repo, const char *url, struct gitrepo_ctx *c,
    char *err, size_t errsz)
{
	git_config	*cfg = NULL;
	git_buf		 cur = { NULL, 0, 0 };
	int		 code, rc = -1;

	if ((code = git_repository_config(&cfg, repo)) != 0)
		goto fail;
	if (git_config_get_string_buf(&cur, cfg, "remote." GITREPO_REMOTE ".url") == 0 &&
	    strcmp(cur.ptr, url) == 0) {
		rc = 0;
		goto out;
	}
	git_error_clear();
	if ((code = git_config_set_string(cfg, "remote." GITREPO_REMOTE ".url", url)) != 0 ||
	    (code = git_config_set_string(cfg, "remote." GITREPO_REMOTE ".fetch",
	    GITREPO_REFSPEC)) != 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	gitrepo_fail(c, code, url, "cannot write the clone's configuration", err, errsz);
out:
	git_buf_dispose(&cur);
	git_config_free(cfg);
	return rc;
}

/*
 * Fetches every branch of url into refs/remotes/origin/ (all of refs/heads), with tags set
 * its tags into refs/tags/ too, and prunes deleted ones; *defbranch gets the remote's
 * default branch when the server tells it.
 */
static int
gitrepo_fetch(git_repository *repo, const char *url, struct gitrepo_ctx *c, int tags,
    char **defbranch, char *err, size_t errsz)
{
	git_remote		*remote = NULL;
	git_remote_create_options ropts;
	git_fetch_options	 opts;
	git_buf			 def = { NULL, 0, 0 };
	char			*spec[] = { GITREPO_REFSPEC, GITREPO_TAGSPEC };
	git_strarray		 refspecs = { spec, tags ? 2 : 1 };
	int			 code, rc = -1;

	*defbranch = NULL;
	/*
	 * An in-memory remote that ignores url.*.insteadOf: the URL fetched is exactly
	 * the configured one (and libgit2 1.5.1 leaks in that config regex search).
	 */
	if ((code = git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION)) != 0 ||
	    (code = git_remote_create_options_init(&ropts,
	    GIT_REMOTE_CREATE_OPTIONS_VERSION)) != 0) {
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	ropts.repository = repo;
	ropts.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	    GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	if ((code = git_remote_create_with_opts(&remote, url, &ropts)) != 0) {
		remote = NULL;
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	opts.prune = GIT_FETCH_PRUNE;
	opts.update_fetchhead = 0;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	gitrepo_callbacks(&opts.callbacks, c);
	if ((code = git_remote_connect(remote, GIT_DIRECTION_FETCH, &opts.callbacks,
	    NULL, NULL)) != 0) {
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	if (git_remote_default_branch(&def, remote) == 0)
		*defbranch = gitrepo_short_head(def.ptr);
	git_buf_dispose(&def);
	git_error_clear();
	/* The fetch may open a new connection that asks once more. */
	c->ncred = 0;
	if ((code = git_remote_fetch(remote, &refspecs, &opts, "sync")) != 0) {
		gitrepo_fail(c, code, url, "fetch", err, errsz);
		goto out;
	}
	rc = 0;
out:
	git_remote_free(remote);
	return rc;
}

void
gitrepo_limits_load(struct gitrepo_limits *l, struct db *db, const char *datadir)
{
	l->connect_ms = settings_get_long(db, datadir, "git.connect_timeout_s",
	    GITREPO_CONNECT_MS / 1000) * 1000;
	l->stall_ms = settings_get_long(db, datadir, "git.stall_timeout_s",
	    GITREPO_STALL_MS / 1000) * 1000;
	l->deadline_ms = 0;
}

/* The context of one sync: its URL, credentials and limits, the URL's host and port. */
static void
gitrepo_ctx_init(struct gitrepo_ctx *c, const char *url, const char *user,
    const char *token, const struct gitrepo_limits *limits)
{
	CURLU	*u;
	char	*h = NULL, *p = NULL;
	size_t	 n;

	memset(c, 0, sizeof(*c));
	c->url = url != NULL ? url : "";
	c->user = user;
	c->token = token != NULL && *token != '\0' ? token : NULL;
	c->max = limits != NULL ? limits->max_fetch_bytes : 0;
	c->plain_http_hosts = limits != NULL ? limits->plain_http_hosts : NULL;
	c->connect_ms = limits != NULL && limits->connect_ms > 0 ? limits->connect_ms :
	    GITREPO_CONNECT_MS;
	c->stall_ms = limits != NULL && limits->stall_ms > 0 ? limits->stall_ms :
	    GITREPO_STALL_MS;
	c->deadline_ms = limits != NULL ? limits->deadline_ms : 0;
	if ((u = curl_url()) == NULL)
		return;
	if (curl_url_set(u, CURLUPART_URL, c->url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &h, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &p, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		n = strlen(h);
		if (n >= 2 && h[0] == '[' && h[n - 1] == ']')
			snprintf(c->host, sizeof(c->host), "%.*s", (int)(n - 2), h + 1);
		else
			snprintf(c->host, sizeof(c->host), "%s", h);
		snprintf(c->port, sizeof(c->port), "%s", p);
	}
	curl_free(h);
	curl_free(p);
	curl_url_cleanup(u);
}

/* A failure to talk to the remote: err becomes "could not fetch URL: <err>". */
static void
gitrepo_fetch_failed(const char *url, char *err, size_t errsz)
{
	char	*why;

	if ((why = strdup(err)) == NULL)
		snprintf(err, errsz, FETCH_FAILED_PREFIX "%s", url);
	else
		snprintf(err, errsz, FETCH_FAILED_PREFIX "%s: %s", url, why);
	free(why);
}

int
gitrepo_sync(struct gitrepo **out, const char *url, const char *branch,
    const char *dir, const char *user, const char *token,
    const struct gitrepo_limits *limits, char *err, size_t errsz)
{
	struct gitrepo			*g = NULL;
	struct gitrepo_ctx		 c;
	git_repository_init_options	 iopts;
	struct stat			 st;
	git_oid				 oid;
	char				*want = NULL, *defbranch = NULL, *headbranch = NULL;
	const char			*cands[4];
	size_t				 i;
	int				 exists = 1, fresh = 0, code, rc = -1;

	*out = NULL;
	if (errsz > 0)
		err[0] = '\0';
	gitrepo_ctx_init(&c, url, user, token, limits);
	if (git_libgit2_init() < 0 || gitrepo_stream_register() != 0) {
		snprintf(err, errsz, "cannot initialise libgit2");
		log_err("%s: %s", __func__, err);
		return -1;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL) {
		snprintf(err, errsz, "out of memory");
		log_err("%s: %s", __func__, err);
		git_libgit2_shutdown();
		return -1;
	}
	if (url == NULL || *url == '\0' || gitrepo_url_has_secret(url)) {
		snprintf(err, errsz, "the repository URL must be set and must not carry "
		    "a password or token (use the git token in the settings)");
		goto out;
	}

	if (stat(dir, &st) == -1) {
		if (errno != ENOENT) {
			snprintf(err, errsz, "cannot access the clone folder: %s",
			    strerror(errno));
			goto out;
		}
		exists = 0;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errsz, "the clone folder is not a directory");
		goto out;
	}
	if (!exists || gitrepo_dir_empty(dir)) {
		/* First sync: a bare repository, no working tree. */
		fresh = 1;
		if ((code = git_repository_init_options_init(&iopts,
		    GIT_REPOSITORY_INIT_OPTIONS_VERSION)) == 0) {
			iopts.flags = GIT_REPOSITORY_INIT_BARE |
			    GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
			code = git_repository_init_ext(&g->repo, dir, &iopts);
		}
		if (code != 0) {
			g->repo = NULL;
			gitrepo_fail(&c, code, dir, "cannot create the local clone", err,
			    errsz);
			goto out;
		}
	} else if ((code = git_repository_open_bare(&g->repo, dir)) != 0) {
		g->repo = NULL;
		gitrepo_fail(&c, code, dir, "cannot open the local clone", err, errsz);
		goto out;
	}
	if (gitrepo_config_origin(g->repo, url, &c, err, errsz) == -1)
		goto out;
	gitrepo_cur = &c;
	/* Tags only for a named branch or tag (a library's version may be a tag). */
	code = gitrepo_fetch(g->repo, url, &c, branch != NULL && *branch != '\0', &defbranch,
	    err, errsz);
	gitrepo_cur = NULL;
	if (code == -1) {
		gitrepo_fetch_failed(url, err, errsz);
		goto out;
	}
	fresh = 0;	/* a good first clone stays, even if the branch is wrong */
	if (defbranch != NULL)
		gitrepo_set_origin_head(g->repo, defbranch);

	if (branch != NULL && *branch != '\0') {
		if (gitrepo_resolve(g->repo, branch, &oid) == -1) {
			snprintf(err, errsz, "branch '%s' not found in the repository",
			    branch);
			goto out;
		}
		want = strdup(branch);
	} else {
		/*
		 * The server's word, then what an earlier sync recorded, then the usual
		 * names.
		 */
		headbranch = gitrepo_origin_head(g->repo);
		cands[0] = defbranch;
		cands[1] = headbranch;
		cands[2] = "main";
		cands[3] = "master";
		for (i = 0; i < 4; i++)
			if (cands[i] != NULL && gitrepo_resolve(g->repo, cands[i], &oid) == 0)
				break;
		if (i == 4) {
			snprintf(err, errsz, "cannot find the default branch of the "
			    "repository (is it empty?)");
			goto out;
		}
		want = strdup(cands[i]);
	}
	if (want == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	g->branch = want;
	git_oid_tostr(g->commit, sizeof(g->commit), &oid);
	/* A second request would have failed the sync: the token given was taken. */
	g->credentials = c.cred_given;
	*out = g;
	g = NULL;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s: %s", __func__, dir, err);
	if (fresh) {
		/* The first clone failed: leave no half-made repository behind. */
		git_repository_free(g->repo);
		g->repo = NULL;
		gitrepo_rm(dir, !exists);
	}
	free(defbranch);
	free(headbranch);
	gitrepo_free(g);
	return rc;
}

const char *
gitrepo_commit(const struct gitrepo *g)
{
	return g->commit;
}

const char *
gitrepo_branch(const struct gitrepo *g)
{
	return g->branch;
}

int
gitrepo_used_credentials(const struct gitrepo *g)
{
	return g->credentials;
}

struct gitrepo_walk {
	git_odb			*odb;
	struct gitrepo_entry	*v;
	size_t			 n;
	size_t			 cap;
	int			 failed;
};

/* git_tree_walk callback: records regular and executable blobs with their size. */
static int
gitrepo_walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct gitrepo_walk	*w = payload;
	struct gitrepo_entry	*e, *nv;
	git_filemode_t		 mode = git_tree_entry_filemode(te);
	git_object_t		 type;
	struct buf		 path;
	size_t			 size, ncap;

	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;	/* trees: descend; links, submodules: skip */
	if (git_odb_read_header(&size, &type, w->odb, git_tree_entry_id(te)) != 0) {
		w->failed = 1;
		return -1;
	}
	if (w->n == w->cap) {
		ncap = w->cap ? w->cap * 2 : 256;
		if ((nv = reallocarray(w->v, ncap, sizeof(*nv))) == NULL)
			goto nomem;
		w->v = nv;
		w->cap = ncap;
	}
	buf_init(&path);
	if (buf_adds(&path, root) == -1 || buf_adds(&path, git_tree_entry_name(te)) == -1) {
		buf_release(&path);
		goto nomem;
	}
	e = &w->v[w->n++];
	e->path = buf_detach(&path);
	git_oid_tostr(e->oid, sizeof(e->oid), git_tree_entry_id(te));
	e->size = size;
	return 0;
nomem:
	git_error_set_oom();
	w->failed = 1;
	return -1;
}

int
gitrepo_list(struct gitrepo *g, struct gitrepo_entry **out, size_t *n,
    char *err, size_t errsz)
{
	struct gitrepo_walk	 w;
	git_oid			 oid;
	git_commit		*commit = NULL;
	git_tree		*tree = NULL;
	const git_error		*e;
	int			 rc = -1;

	*out = NULL;
	*n = 0;
	memset(&w, 0, sizeof(w));
	if (git_oid_fromstr(&oid, g->commit) != 0 ||
	    git_commit_lookup(&commit, g->repo, &oid) != 0 ||
	    git_commit_tree(&tree, commit) != 0 ||
	    git_repository_odb(&w.odb, g->repo) != 0 ||
	    git_tree_walk(tree, GIT_TREEWALK_PRE, gitrepo_walk_cb, &w) != 0) {
		e = git_error_last();
		snprintf(err, errsz, "cannot list the files of commit %s: %s", g->commit,
		    e != NULL && e->message != NULL ? e->message : "unknown error");
		log_err("%s: %s", __func__, err);
		gitrepo_list_free(w.v, w.n);
		goto out;
	}
	*out = w.v;
	*n = w.n;
	rc = 0;
out:
	git_odb_free(w.odb);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}

void
gitrepo_list_free(struct gitrepo_entry *v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

int
gitrepo_read(struct gitrepo *g, const char *oidhex, size_t max, char **data,
    size_t *len, char *err, size_t errsz)
{
	git_oid		 oid;
	git_odb		*odb = NULL;
	git_blob	*blob = NULL;
	git_object_t	 type;
	const git_error	*e;
	size_t		 size;
	char		*p;
	int		 rc = -1;

	*data = NULL;
	*len = 0;
	if (git_oid_fromstr(&oid, oidhex) != 0 ||
	    git_repository_odb(&odb, g->repo) != 0 ||
	    git_odb_read_header(&size, &type, odb, &oid) != 0) {
		e = git_error_last();
		snprintf(err, errsz, "cannot read object %s: %s", oidhex,
		    e != NULL && e->message != NULL ? e->message : "unknown error");
		goto out;
	}
	if (type != GIT_OBJECT_BLOB) {
		snprintf(err, errsz, "object %s is not a file", oidhex);
		goto out;
	}
	if (size > max) {
		snprintf(err, errsz, "file is larger than the limit of %zu bytes", max);
		goto out;
	}
	if (git_blob_lookup(&blob, g->repo, &oid) != 0) {
		e = git_error_last();
		snprintf(err, errsz, "cannot read object %s: %s", oidhex,
		    e != NULL && e->message != NULL ? e->message : "unknown error");
		goto out;
	}
	size = (size_t)git_blob_rawsize(blob);
	if ((p = malloc(size + 1)) == NULL) {
		snprintf(err, errsz, "out of memory");
		goto out;
	}
	memcpy(p, git_blob_rawcontent(blob), size);
	p[size] = '\0';
	*data = p;
	*len = size;
	rc = 0;
out:
	if (rc == -1)
		log_err("%s: %s", __func__, err);
	git_blob_free(blob);
	git_odb_free(odb);
	return rc;
}

void
gitrepo_free(struct gitrepo *g)
{
	if (g == NULL)
		return;
	git_repository_free(g->repo);
	free(g->branch);
	free(g);
	git_libgit2_shutdown();
}
