/* nvrtc_includes.h - which files a kernel source may include, decided by
 * cudalab before NVRTC reads anything.
 *
 * A kernel (a learner's, or a lab folder's) may include the files of its
 * own folder (root) and the shipped include set: the CUDA toolkit's
 * headers and assets/nvrtc-include.  nvrtc_includes_check reads the source
 * the way the preprocessor does (line splices, comments, string, character
 * and raw string literals, digraphs) and looks at every #include and every
 * __has_include, also inside #if 0 and in the local headers it includes,
 * recursively.  It refuses, with the file and line:
 *   - an absolute path, or a path with a ".." component;
 *   - a name that is not written out ("#include PATH_MACRO", or a macro
 *     that builds the name): cudalab cannot know what it would open;
 *   - #include_next, #import, #embed, __has_include_next, __has_embed;
 *   - a local file that is a link leading outside root, or is not a
 *     regular file (a FIFO would block the compiler);
 *   - a backslash followed by spaces at the end of a line (compilers
 *     disagree on whether it joins the lines);
 *   - more than NVRTC_INCLUDES_MAX local headers.
 * Names that are in no folder at all are left to NVRTC (its built-in
 * headers, or its own "cannot open source file" error).
 *
 * What passes is the list of local headers (their real paths): the only
 * files besides the source that the compile cache hashes and that
 * diagnostics quote lines from. */
#ifndef CUDALAB_GPU_NVRTC_INCLUDES_H
#define CUDALAB_GPU_NVRTC_INCLUDES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/paths.h"
#include "gpu/nvrtc.h"

#define NVRTC_INCLUDES_MAX 64
#define NVRTC_TRUSTED_MAX 4

typedef struct nvrtc_includes {
    char root[CL_PATH_MAX];                       /* real path of the kernel's folder */
    char trusted[NVRTC_TRUSTED_MAX][CL_PATH_MAX]; /* the shipped include folders */
    size_t ntrusted;
    char files[NVRTC_INCLUDES_MAX][CL_PATH_MAX];  /* local headers included (real paths) */
    size_t nfiles;
} nvrtc_includes;

/* Checks the source main_text of the file main_real (its real path, inside
 * inc->root) and, recursively, every local header it includes.  inc->root
 * and inc->trusted must be set; inc->files is filled.  false when an
 * include is refused (*refusal then holds the error as a compiler would
 * give it, with file, line, column and the source line) or when out of
 * memory (refusal->message says so, refusal->line is 0). */
bool nvrtc_includes_check(const char *main_real, const char *main_text, nvrtc_includes *inc,
                          nvrtc_diag *refusal);

/* Whether path is main_real or one of inc's local headers: the files whose
 * lines a diagnostic may quote. */
bool nvrtc_includes_allowed(const nvrtc_includes *inc, const char *main_real, const char *path);

#endif
