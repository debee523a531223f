/* gitrepo.h: git clones and fetches through libgit2, bounded and under the address policy. */
#ifndef GITREPO_H
#define GITREPO_H

#include <stddef.h>

struct gitrepo;
struct db;

struct gitrepo_entry {
	char	*path;
	char	 oid[41];
	size_t	 size;
};

struct gitrepo_limits {
	size_t	 max_fetch_bytes;	/* abort clone/fetch past this many bytes */
	/* hosts ("host" or "host:port", comma-separated) that may get the token over
	 * plain http (setting git.plain_http_hosts); NULL: none */
	const char *plain_http_hosts;
	/*
	 * Deadlines of one attempt (gitrepo_limits_load; 0: the defaults, none): connecting
	 * to one address (git.connect_timeout_s), the stall window (git.stall_timeout_s: the
	 * server sent less than 16 bytes a second over it) and the job's deadline
	 * (util_now_ms clock). Past one the transfer ends with a message naming it.
	 */
	long	 connect_ms, stall_ms;
	long long deadline_ms;
};

/* Fills l's deadlines from the settings git.connect_timeout_s and git.stall_timeout_s. */
void	 gitrepo_limits_load(struct gitrepo_limits *l, struct db *,
	    const char *datadir);

/*
 * Clones url into dir, or fetches when dir already holds a clone, then resolves branch
 * ("" or NULL: the remote's default branch) to a commit. user/token (may be NULL) are
 * handed to libgit2 through a credentials callback only: never in a URL, a log or
 * .git/config; and only to url's own scheme, host and port (not to a host a redirect
 * leads to), over http only to the plain_http_hosts. Every connection goes through a
 * socket stream that checks each resolved address against fetch_policy_current(). On
 * failure writes a message without secrets to err; a failure to talk to the remote
 * starts with "could not fetch URL: " (lib/search/catalog.h, format_public_error).
 */
int	 gitrepo_sync(struct gitrepo **out, const char *url, const char *branch,
	    const char *dir, const char *user, const char *token,
	    const struct gitrepo_limits *, char *err, size_t errsz);
const char *gitrepo_commit(const struct gitrepo *);	/* 40 hex digits */
const char *gitrepo_branch(const struct gitrepo *);	/* resolved branch name */
/*
 * 1 when the last sync's server asked for credentials and took the token: the repository
 * is not public (a public one never asks).
 */
int	 gitrepo_used_credentials(const struct gitrepo *);
/* Lists regular files (not symlinks, not submodules) of the resolved commit's tree. */
int	 gitrepo_list(struct gitrepo *, struct gitrepo_entry **out, size_t *n,
	    char *err, size_t errsz);
void	 gitrepo_list_free(struct gitrepo_entry *, size_t);
/* Reads a blob of at most max bytes; *data NUL-terminated, caller frees. */
int	 gitrepo_read(struct gitrepo *, const char *oid, size_t max, char **data,
	    size_t *len, char *err, size_t errsz);
void	 gitrepo_free(struct gitrepo *);

#endif /* GITREPO_H */
