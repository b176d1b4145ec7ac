/* paths.h - where cudalab finds its files and keeps its data.
 *
 * home:      folder holding labs/, lua/ and assets/.  In order: $CUDALAB_HOME;
 *            <exe>/../share/cudalab (installed); the source tree compiled in
 *            (running from the build folder).
 * data:      --data DIR (which sets $CUDALAB_DATA, so the worker sees it too),
 *            else $CUDALAB_DATA, else $XDG_DATA_HOME/cudalab, else
 *            ~/.local/share/cudalab (progress, caches, timelines).
 * workspace: --workspace DIR, else $CUDALAB_WORKSPACE, else ~/cudalab-workspace.
 * cache:     $CUDALAB_CACHE, else $XDG_CACHE_HOME/cudalab, else ~/.cache/cudalab
 *            (files cudalab can make again, such as the pipeline lab's data set). */
#ifndef CUDALAB_CORE_PATHS_H
#define CUDALAB_CORE_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define CL_PATH_MAX 4096

bool paths_home(char *out, size_t cap, cl_err *err);
bool paths_data_dir(char *out, size_t cap, cl_err *err);
bool paths_cache_dir(char *out, size_t cap, cl_err *err);
void paths_set_workspace(const char *dir);   /* from --workspace; NULL resets */
bool paths_workspace(char *out, size_t cap, cl_err *err);
bool paths_self_exe(char *out, size_t cap, cl_err *err); /* /proc/self/exe */
typedef enum paths_dir_state {
    PATHS_DIR_WRITABLE,        /* a folder this process may write into */
    PATHS_DIR_MISSING,         /* not there yet; paths_mkdir_p would make it */
    PATHS_DIR_NOT_WRITABLE,    /* cannot be made, or cannot be written */
} paths_dir_state;

/* What dir is, changing nothing.  For PATHS_DIR_NOT_WRITABLE, why (may be
 * NULL) gets the reason in the words messages use after the folder's name:
 * "cannot be created (/etc/passwd is not a folder)", "cannot be written
 * (Permission denied)". */
paths_dir_state paths_dir_probe(const char *dir, char *why, size_t why_cap);
/* mkdir -p; true if the folder exists afterwards. */
bool paths_mkdir_p(const char *dir, cl_err *err);
bool paths_is_dir(const char *path);
bool paths_is_file(const char *path);
/* The last component of path: "starter.cu" for "/w/lab/starter.cu"; path
 * itself when it holds no '/'. */
const char *paths_base_name(const char *path);
/* The folder part of path into out: "/w/lab" for "/w/lab/starter.cu", "/"
 * for "/x", "." when path holds no '/'.  false if it does not fit. */
bool paths_dir_name(const char *path, char *out, size_t cap);
/* Joins dir and name with one '/' into out; false if it does not fit. */
bool paths_join(char *out, size_t cap, const char *dir, const char *name);

#endif
