/* sandbox.c: the seccomp filter of the read-only responders (see sandbox.h). */
#include "config.h"

#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seccomp.h>

#include "base/sandbox.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_SANITIZERS	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANDBOX_SANITIZERS	1
#endif
#endif
#ifndef SANDBOX_SANITIZERS
#define SANDBOX_SANITIZERS	0
#endif

/* Calls refused with EPERM (names unknown to this kernel's architecture are skipped). */
static const char *const sandbox_denied[] = {
	/* programs and processes */
	"execve", "execveat", "fork", "vfork",
	/* other processes' memory and descriptors */
	"process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	/* file systems, namespaces, root */
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "unshare", "setns",
	"open_by_handle_at", "name_to_handle_at", "quotactl", "swapon", "swapoff",
	/* the kernel: modules, BPF, perf, keyring, io_uring, userfaultfd */
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "uselib",
	/* identity and privileges */
	"setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
	"setfsuid", "setfsgid", "capset", "personality",
	/* the machine */
	"reboot", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "syslog", "iopl", "ioperm", "vhangup",
};

int
sandbox_wanted(void)
{
	const char	*v = getenv("CTXD_SECCOMP");

	return v == NULL || strcmp(v, "off") != 0;
}

/* Adds "name fails with errno e" to ctx; unknown names are skipped. */
static int
sandbox_deny(scmp_filter_ctx ctx, const char *name, int e)
{
	int	 nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(e), nr, 0);
}

int
sandbox_install(char *err, size_t errsz)
{
	scmp_filter_ctx	 ctx;
	/* clone flags that make the new task share this one's memory: a thread (or, in
	 * sanitizer builds, LeakSanitizer's tracer, CLONE_VM). */
	const scmp_datum_t shared = CLONE_THREAD | (SANDBOX_SANITIZERS ? CLONE_VM : 0);
	size_t		 i;
	int		 rc;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		snprintf(err, errsz, "seccomp_init failed");
		return -1;
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1)) != 0)
		goto fail;
	for (i = 0; i < sizeof(sandbox_denied) / sizeof(sandbox_denied[0]); i++)
		if ((rc = sandbox_deny(ctx, sandbox_denied[i], EPERM)) != 0)
			goto fail;
	if (!SANDBOX_SANITIZERS && (rc = sandbox_deny(ctx, "ptrace", EPERM)) != 0)
		goto fail;
	/* clone3 hides its flags in memory the filter cannot read: the C library then
	 * falls back to clone. */
	if ((rc = sandbox_deny(ctx, "clone3", ENOSYS)) != 0)
		goto fail;
	if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
	    SCMP_A0(SCMP_CMP_MASKED_EQ, shared, 0))) != 0)
		goto fail;
	if ((rc = seccomp_load(ctx)) != 0)
		goto fail;
	seccomp_release(ctx);
	return 0;
fail:
	snprintf(err, errsz, "cannot install the seccomp filter: %s", strerror(-rc));
	seccomp_release(ctx);
	return -1;
}
