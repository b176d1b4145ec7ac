/* fsguard.h - reading a file that must stay inside a folder.
 *
 * Learner kernels, launchers and lab folders are untrusted: a file they
 * name may be a link to a secret elsewhere, a FIFO that blocks its reader,
 * or a device.  fsguard_resolve accepts a path only when its real path
 * (every link followed) lies inside the real path of root and names a
 * regular file; fsguard_read then reads it.  Messages name the path as
 * given and say what is wrong with it ("starter.cu is a link to a file
 * outside its folder"), never what the link points at. */
#ifndef CUDALAB_CORE_FSGUARD_H
#define CUDALAB_CORE_FSGUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

/* Whether real (a canonical path) is root (canonical) or lies below it. */
bool fsguard_below(const char *real, const char *root);

/* real receives the canonical path of path when it is a regular file
 * inside root (root may be NULL: path's own folder).  false + err otherwise. */
bool fsguard_resolve(const char *path, const char *root, char *real, size_t cap, cl_err *err);

/* The whole file (NUL-terminated, malloc'd; its length in *len when not
 * NULL), under the rules of fsguard_resolve; NULL + err when refused, larger
 * than max bytes or unreadable. */
char *fsguard_read(const char *path, const char *root, size_t max, size_t *len, cl_err *err);

#endif
