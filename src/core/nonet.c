/* nonet.c - a seccomp filter that refuses network sockets and pushing
 * input into a terminal (core/nonet.h). */
#include "core/nonet.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define NONET_ARCH AUDIT_ARCH_X86_64
#define NONET_X32_BIT 0x40000000u   /* x32 system calls share the x86_64 arch value */
#else
#define NONET_ARCH AUDIT_ARCH_AARCH64
#define NONET_X32_BIT 0xffffffffu   /* no such range: the compare never matches */
#endif

#define NONET_LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define NONET_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))

bool nonet_apply(char *why, size_t why_n)
{
    /* The first argument's low word is the family (args are 64-bit, and
     * both architectures are little-endian). */
    struct sock_filter prog[] = {
        NONET_LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NONET_ARCH, 1, 0),
        NONET_RET(SECCOMP_RET_ERRNO | EPERM),              /* another ABI: nothing */
        NONET_LOAD(nr),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, NONET_X32_BIT, 0, 1),
        NONET_RET(SECCOMP_RET_ERRNO | EPERM),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        NONET_RET(SECCOMP_RET_ERRNO | EPERM),
        /* no byte pushed into a terminal's input (TIOCSTI) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4),
        NONET_LOAD(args[1]),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 0, 1),
        NONET_RET(SECCOMP_RET_ERRNO | EPERM),
        NONET_RET(SECCOMP_RET_ALLOW),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 4),
        NONET_LOAD(args[0]),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_NETLINK, 1, 0),
        NONET_RET(SECCOMP_RET_ERRNO | EACCES),
        NONET_RET(SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {.len = (unsigned short)(sizeof prog / sizeof prog[0]),
                               .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
        if (why)
            snprintf(why, why_n, "the kernel refused the network filter: %s", strerror(errno));
        return false;
    }
    return true;
}

#else

bool nonet_apply(char *why, size_t why_n)
{
    if (why)
        snprintf(why, why_n, "no network filter for this system: sockets stay open");
    return false;
}

#endif
