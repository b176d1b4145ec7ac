/* bwrap.h - the namespace sandbox: a command line for bubblewrap (Debian's
 * `bubblewrap`, the sandbox Flatpak builds on) that runs a program with
 * every namespace unshared (user, mount, PID, network, IPC, UTS, cgroup),
 * in a new session (no controlling terminal), dying with its parent, with
 * an environment of exactly the variables given, all capabilities dropped,
 * a root made of read-only binds of the paths named, the device nodes
 * named, a fresh /proc of its own processes, a private /dev and /tmp, and
 * one writable folder; bwrap itself is started with an empty environment
 * and the command is the namespace's PID 1.  A path to hide (a key file inside a bound folder)
 * is covered by an empty file.  What is not bound does not exist inside.
 *
 * The caller decides what to bind (grade/grade_sandbox.c for the grading
 * worker); this file knows bubblewrap's options and nothing of cudalab. */
#ifndef CUDALAB_CORE_BWRAP_H
#define CUDALAB_CORE_BWRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define BWRAP_PROGRAM "bwrap"

typedef struct bwrap_spec {
    const char *const *ro;       /* bound read-only at the same path (missing ones skipped) */
    size_t nro;
    const char *const *dev;      /* device nodes or folders of them, bound as they are */
    size_t ndev;
    const char *const *hide;     /* files inside a bound folder, covered by an empty file */
    size_t nhide;
    const char *scratch;         /* bound read-write at the same path; NULL: none */
    const char *const (*files)[2];   /* {source, dest}: a file bound read-only at dest,
                                      * after the scratch (dest may lie inside it) */
    size_t nfiles;
    const char *const *env;      /* "NAME=value": the whole environment */
    size_t nenv;
    const char *chdir;           /* NULL: the scratch folder, else / */
} bwrap_spec;

/* The full path of bwrap on PATH (or in /usr/bin) into out; false when it
 * is not installed. */
bool bwrap_find(char *out, size_t cap);

/* bwrap's argv for s, then cmd (NULL-ended), into a malloc'd NULL-ended
 * vector whose strings belong to it; NULL + err when bwrap is not installed
 * or out of memory.  Free with bwrap_argv_free. */
char **bwrap_argv(const bwrap_spec *s, const char *const *cmd, cl_err *err);
void bwrap_argv_free(char **argv);

/* Whether a sandbox of this shape can be made here: runs `bwrap ... true`
 * once (with a scratch of its own) and caches the answer for the process;
 * false + why ("bubblewrap is not installed", "bwrap: ... Operation not
 * permitted" when the kernel or a container forbids user namespaces). */
bool bwrap_works(char *why, size_t why_n);

#endif
