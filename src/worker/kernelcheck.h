/* kernelcheck.h - a lab's kernel file and its launcher, checked as a run
 * would open them, without a GPU: for `cudalab check` (set as its hook by
 * main.c, so that the command line itself stays free of CUDA). */
#ifndef CUDALAB_WORKER_KERNELCHECK_H
#define CUDALAB_WORKER_KERNELCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Compiles kernel with NVRTC (confined to root, as a run is) and loads
 * launcher in the sandbox.  false with msg when either is broken: the first
 * compile error as "rel/path.cu:line:col: error: ..." (the path from root,
 * "and N more errors" after it), or the launcher's error.  A kernel without
 * a launcher (NULL) is the multigpu lab's ring exercise, checked as its
 * ranks open it (mgpu/ringcheck.h). */
bool worker_kernel_check(const char *kernel, const char *launcher, const char *root, char *msg,
                         size_t cap);

#endif
