/* atomicfile.h - write a whole file or nothing.
 *
 * Writes to "<path>.tmp.<pid>", fsyncs, then renames over path, so a crash
 * or a full disk never leaves a half-written file behind. */
#ifndef CUDALAB_CORE_ATOMICFILE_H
#define CUDALAB_CORE_ATOMICFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

bool atomicfile_write(const char *path, const void *data, size_t len, cl_err *err);
/* Reads a whole file into a NUL-terminated malloc'd buffer (caller frees).
 * Refuses files over max_bytes, and anything but a regular file (a FIFO or
 * a device is refused at once, never waited on). */
char *file_read_all(const char *path, size_t max_bytes, size_t *len, cl_err *err);

#endif
