/*
 * test-sandbox.c: the seccomp filter of the read-only responders (lib/base/sandbox.c). A child
 * process installs it and tries what a responder must not do (start a program, fork, trace,
 * change identity or namespaces, mount, BPF, the keyring: each must fail with EPERM) and what
 * it must still do (open and read files, a SQLite database in WAL mode, sockets, threads, name
 * resolution); the parent checks each result. The child never returns to the test's exit path
 * (_exit), so the filter ends with it.
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <netdb.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/sandbox.h"
#include "tap.h"
#include "store/conn.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZERS	1
#else
#define SANITIZERS	0
#endif

static char	 tmpdir[] = "/tmp/ctxd-sandbox.XXXXXX";

/* Each probe returns 0 when the call worked, else the errno it failed with. */
static int
errno_of(long rc)
{
	return rc == -1 ? errno : 0;
}

static int
probe_seccomp_status(void)
{
	char	 line[256];
	FILE	*f;
	int	 mode = -1;

	if ((f = fopen("/proc/self/status", "r")) == NULL)
		return errno;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	fclose(f);
	return mode == 2 ? 0 : EINVAL;
}

static int
probe_execve(void)
{
	char	*argv[] = { "/bin/true", NULL }, *envp[] = { NULL };

	return errno_of(execve("/bin/true", argv, envp));
}

static int
probe_fork(void)
{
	pid_t	 pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		return 0;
	}
	return errno;
}

static int
probe_clone3(void)
{
	return errno_of(syscall(SYS_clone3, NULL, 0));
}

static int
probe_ptrace(void)
{
	return errno_of(ptrace(PTRACE_TRACEME, 0, NULL, NULL));
}

static int
probe_setuid(void)
{
	return errno_of(setuid(getuid()));
}

static int
probe_unshare(void)
{
	return errno_of(unshare(CLONE_NEWUSER));
}

static int
probe_mount(void)
{
	return errno_of(mount("none", tmpdir, "tmpfs", 0, NULL));
}

static int
probe_bpf(void)
{
	return errno_of(syscall(SYS_bpf, 0, NULL, 0));
}

static int
probe_keyctl(void)
{
	return errno_of(syscall(SYS_keyctl, 0, 0, 0, 0, 0));
}

static int
probe_read_file(void)
{
	char	 buf[64];
	int	 fd, e = 0;

	if ((fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC)) == -1)
		return errno;
	if (read(fd, buf, sizeof(buf)) < 0)
		e = errno;
	close(fd);
	return e;
}

static int
probe_sqlite(void)
{
	char	 path[256];
	struct db	*db = NULL;
	int	 rc;

	snprintf(path, sizeof(path), "%s/t.db", tmpdir);
	rc = db_lite_open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db) != SQLITE_OK ||
	    sqlite3_exec(db_lite(db), "PRAGMA journal_mode = WAL; CREATE TABLE t (x); "
	    "INSERT INTO t VALUES (1); SELECT x FROM t;", NULL, NULL, NULL) != SQLITE_OK;
	db_lite_close(db);
	return rc ? EIO : 0;
}

static int
probe_sockets(void)
{
	int	 sv[2], s, e = 0;
	char	 c = 'x';

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return errno;
	close(s);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return errno;
	if (write(sv[0], &c, 1) != 1 || read(sv[1], &c, 1) != 1)
		e = EIO;
	close(sv[0]);
	close(sv[1]);
	return e;
}

static void *
thread_main(void *arg)
{
	*(int *)arg = 42;
	return NULL;
}

static int
probe_thread(void)
{
	pthread_t	 t;
	int		 v = 0, e;

	if ((e = pthread_create(&t, NULL, thread_main, &v)) != 0)
		return e;
	pthread_join(t, NULL);
	return v == 42 ? 0 : EIO;
}

static int
probe_resolve(void)
{
	struct addrinfo	 hints, *res = NULL;
	int		 e;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo("localhost", "80", &hints, &res)) != 0)
		return EIO;
	freeaddrinfo(res);
	return 0;
}

static const struct {
	const char	*what;
	int		(*fn)(void);
	int		 want;		/* errno expected, 0: works */
	int		 skip;		/* not checked in this build */
} probes[] = {
	{ "/proc/self/status says Seccomp: 2", probe_seccomp_status, 0, 0 },
	{ "execve fails with EPERM", probe_execve, EPERM, 0 },
	{ "fork fails with EPERM", probe_fork, EPERM, 0 },
	{ "clone3 fails with ENOSYS (the C library falls back to clone)", probe_clone3,
	    ENOSYS, 0 },
	{ "ptrace fails with EPERM", probe_ptrace, EPERM, SANITIZERS },
	{ "setuid fails with EPERM", probe_setuid, EPERM, 0 },
	{ "unshare fails with EPERM", probe_unshare, EPERM, 0 },
	{ "mount fails with EPERM", probe_mount, EPERM, 0 },
	{ "bpf fails with EPERM", probe_bpf, EPERM, 0 },
	{ "keyctl fails with EPERM", probe_keyctl, EPERM, 0 },
	{ "open and read a file still work", probe_read_file, 0, 0 },
	{ "a SQLite database in WAL mode still works", probe_sqlite, 0, 0 },
	{ "sockets still work", probe_sockets, 0, 0 },
	{ "a thread still starts", probe_thread, 0, 0 },
	{ "name resolution still works", probe_resolve, 0, 0 },
};
#define NPROBES	(sizeof(probes) / sizeof(probes[0]))

int
main(void)
{
	int	 fds[2], got[NPROBES], st, installed = 0;
	char	 err[256];
	size_t	 i;
	pid_t	 pid;

	setenv("CTXD_SECCOMP", "off", 1);
	ok(sandbox_wanted() == 0, "CTXD_SECCOMP=off turns the filter off");
	setenv("CTXD_SECCOMP", "on", 1);
	ok(sandbox_wanted() == 1, "any other value keeps it");
	unsetenv("CTXD_SECCOMP");
	ok(sandbox_wanted() == 1, "and so does no value");

	if (mkdtemp(tmpdir) == NULL || pipe(fds) == -1) {
		printf("Bail out! mkdtemp or pipe failed\n");
		return 1;
	}
	fflush(stdout);
	if ((pid = fork()) == -1) {
		printf("Bail out! fork failed\n");
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		st = sandbox_install(err, sizeof(err)) == 0;
		if (write(fds[1], &st, sizeof(st)) != (ssize_t)sizeof(st))
			_exit(2);
		for (i = 0; st && i < NPROBES; i++) {
			got[i] = probes[i].skip ? probes[i].want : probes[i].fn();
			if (write(fds[1], &got[i], sizeof(got[i])) !=
			    (ssize_t)sizeof(got[i]))
				_exit(2);
		}
		_exit(st ? 0 : 1);
	}
	close(fds[1]);
	if (read(fds[0], &installed, sizeof(installed)) != (ssize_t)sizeof(installed))
		installed = 0;
	ok(installed, "the filter installs");
	for (i = 0; i < NPROBES; i++) {
		if (!installed || read(fds[0], &got[i], sizeof(got[i])) !=
		    (ssize_t)sizeof(got[i]))
			got[i] = -1;
		if (probes[i].skip) {
			printf("ok %d - # skip %s: allowed for LeakSanitizer in this build\n",
			    ++tap_n, probes[i].what);
			continue;
		}
		ok(got[i] == probes[i].want, "%s (got %s)", probes[i].what,
		    got[i] == -1 ? "nothing" : got[i] == 0 ? "success" : strerror(got[i]));
	}
	close(fds[0]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the sandboxed child exited normally");
	ok(probe_fork() == 0, "the parent, without the filter, still forks");
	snprintf(err, sizeof(err), "%s/t.db", tmpdir);
	unlink(err);
	snprintf(err, sizeof(err), "%s/t.db-wal", tmpdir);
	unlink(err);
	snprintf(err, sizeof(err), "%s/t.db-shm", tmpdir);
	unlink(err);
	rmdir(tmpdir);
	return tap_done();
}
