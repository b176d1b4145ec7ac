/* nccl_find.h - where libnccl.so.2 is looked for, in order (mgpu/nccl.h).
 * Private to src/mgpu/nccl*.c. */
#ifndef CUDALAB_MGPU_NCCL_FIND_H
#define CUDALAB_MGPU_NCCL_FIND_H

#include <stddef.h>

#define NCCL_FIND_SONAME "libnccl.so.2"

/* dlopen's handle of the first libnccl.so.2 that opens, with the file (or
 * the loader's word for it) in from; NULL with what was tried, and why
 * each failed, in tried. */
void *nccl_find_open(char *from, size_t fn, char *tried, size_t tn);

#endif
