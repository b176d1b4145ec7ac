/* nonet.h - keeping a process off the network (Linux seccomp).
 *
 * nonet_apply refuses, for the calling thread and every thread and process
 * it starts from then on, any socket but a local one: socket() and
 * socketpair() of any family other than AF_UNIX and AF_NETLINK fail with
 * EACCES, and io_uring (which can open sockets without socket()) with
 * EPERM; ioctl(TIOCSTI), which pushes bytes into a terminal's input as if
 * typed, fails with EPERM.  Nothing else changes.  A grading worker applies it before it runs
 * what a learner wrote, so neither a kernel's host side nor a Python row
 * can send the grading out or fetch an answer.  It cannot be undone. */
#ifndef CUDALAB_CORE_NONET_H
#define CUDALAB_CORE_NONET_H

#include <stdbool.h>
#include <stddef.h>

/* Applies the filter; false + why (may be NULL) when the kernel refused it
 * or this build's CPU architecture has no filter written for it. */
bool nonet_apply(char *why, size_t why_n);

#endif
