/*
 * sandbox.h: the seccomp filter of the read-only responders (ctxd-query, ctxd-mcp). After
 * their set-up they need to read the database (and write its WAL index), answer on their
 * socket and call an AI provider over HTTPS; they never need to start a program, create a
 * process, trace one, mount, load a module or a BPF program, change their identity or
 * namespaces, or use the kernel keyring. Those calls fail with EPERM once the filter is in
 * (clone3 with ENOSYS, so that the C library falls back to clone, whose flags the filter
 * can see: a thread, CLONE_THREAD, is allowed; a new process is not).
 *
 * CTXD_SECCOMP=off in the environment leaves the filter out (ctxd-query(8)). A build with
 * --enable-sanitizers lets LeakSanitizer's tracer through (clone with CLONE_VM, ptrace).
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>

/* 1 unless the environment turns the filter off (CTXD_SECCOMP=off). */
int	 sandbox_wanted(void);

/*
 * Installs the filter on the calling process (all its threads), for good. 0, or -1 with
 * the reason in err.
 */
int	 sandbox_install(char *err, size_t errsz);

#endif
