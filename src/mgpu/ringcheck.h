/* ringcheck.h - the multigpu lab's exercise kernel checked as a rank
 * would open it, without a GPU: compiled with NVRTC (includes confined to
 * root and the shipped headers), then its ring_allreduce kernel and its
 * launch symbols looked at (lua/multigpu.md).  For `cudalab check`, through
 * worker/kernelcheck.h. */
#ifndef CUDALAB_MGPU_RINGCHECK_H
#define CUDALAB_MGPU_RINGCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* false with msg when the file does not compile ("starter.cu:12:5: error:
 * ...", the path from root) or lacks what a rank needs. */
bool mgpu_ring_check(const char *kernel, const char *root, char *msg, size_t cap);

#endif
