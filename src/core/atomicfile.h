/* atomicfile.h - write a whole file or nothing.
 *
 * Writes to "<path>.tmp.<pid>", fsyncs, then renames over path, so a crash
 * or a full disk never leaves a half-written file behind. */
#ifndef CUDALAB_CORE_ATOMICFILE_H
#define CUDALAB_CORE_ATOMICFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

bool atomicfile_write(const char *path, const void *data, size_t len, cl_err *e);
/* Reads a whole file into a NUL-terminated malloc'd buffer (caller frees).
 * Refuses files over max_bytes. */
char *file_read_all(const char *path, size_t max_bytes, size_t *len, cl_err *e);
/* As file_read_all, for a regular file only: anything else (a FIFO, a
 * device, a folder) is refused without blocking. */
char *file_read_regular(const char *path, size_t max_bytes, size_t *len, cl_err *e);

#endif
