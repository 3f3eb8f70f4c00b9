/* no-io-uring CMD [ARG]...: runs CMD with io_uring_setup(2) refused
 * (ENOSYS), as on a kernel built without io_uring, and so for everything
 * CMD starts (a seccomp filter is inherited across fork and exec).
 *
 * Why: QEMU 11.1 (Debian 13's trixie-backports) watches its main loop's
 * file descriptors through io_uring where the kernel offers it; 7.2 and
 * 10.0 use ppoll. On a loaded host (more QEMUs than cores, as the suite
 * runs them) 11.1's main loop then wakes late: NVMe commands whose
 * completion waits for it outlive the monitor's 2 s deadline, and the
 * firmware's USB mass-storage writes stall for tens of seconds until it
 * resets the stick ("the medium was changed"). Six such boots at once on
 * two cores: with io_uring 1 of 6 failed and they took 60-108 s; with
 * io_uring refused 0 of 6 failed, 56-59 s each. Without io_uring, QEMU
 * falls back to ppoll, as 10.0 always does. tools/qemu-run.sh starts
 * QEMU through this; README, "QEMU 11.1 and io_uring", says more.
 *
 * Only the host's own system call numbering is filtered: a call made
 * through another (x86_64's 32-bit entry) passes as it would anyway. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define HOST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define HOST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_AUDIT_ARCH AUDIT_ARCH_RISCV64
#else
#error "no-io-uring: this host's AUDIT_ARCH is not known here"
#endif

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425 /* the same on every architecture since 5.1 */
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: no-io-uring CMD [ARG]...\n");
		return 2;
	}
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
	/* no new privileges: what an unprivileged filter needs; CMD gains
	 * none through a set-user-id program either way here */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		fprintf(stderr, "no-io-uring: the seccomp filter was refused (%s); %s runs with io_uring\n",
			strerror(errno), argv[1]);
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "no-io-uring: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
