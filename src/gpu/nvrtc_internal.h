/* nvrtc_internal.h - what the pieces of the NVRTC module share: a growing
 * byte buffer, small text helpers, kernel records, where an include leads
 * and the compile cache.
 * Private to src/gpu/nvrtc*.c. */
#ifndef CUDALAB_GPU_NVRTC_INTERNAL_H
#define CUDALAB_GPU_NVRTC_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/strbuf.h"
#include "core/strfmt.h"
#include "gpu/nvrtc.h"
#include "gpu/nvrtc_includes.h"

/* Appends value as 8 little-endian bytes. */
static inline void nvrtc_add_u64(strbuf *buf, uint64_t value)
{
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(value >> (8 * i));
    strbuf_add(buf, le, sizeof le);
}


static inline bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* A zeroed kernel record whose resource figures read -1 (unknown). */
void nvrtc_kernel_init(nvrtc_kernel *kernel);

/* Plain name of a mangled global function "_Z<len><name>..." into base (name
 * itself when not mangled); *mangled says whether it was. */
void nvrtc_demangle_base(const char *name, char *base, size_t base_size, bool *mangled);

/* Where an included name leads. */
typedef enum nvrtc_found {
    NVRTC_FOUND_NOWHERE,    /* in no folder: left to NVRTC */
    NVRTC_FOUND_LOCAL,      /* a file of the kernel's folder */
    NVRTC_FOUND_TRUSTED,    /* a header of the shipped include set */
} nvrtc_found;

/* Where the compiler would find name, included (with quotes when quoted,
 * else angle brackets) from a file in dir, for a kernel whose main file is
 * in main_dir: *found, and for a local file its real path in real.  false,
 * why set, when the kernel may not include it (nvrtc_resolve.c). */
bool nvrtc_resolve_include(const nvrtc_includes *inc, const char *main_dir, const char *name,
                           bool quoted, const char *dir, nvrtc_found *found, char *real,
                           size_t real_size, char *why, size_t why_size);

/* Adds the path and text of every local header of inc (the ones the
 * source includes, checked by nvrtc_includes_check) to the cache key. */
void nvrtc_cache_key_add_includes(strbuf *key, const nvrtc_includes *inc);

/* nvrtc_parse_log quoting source lines of main_path (from main_text) and
 * of inc's local headers (from disk) only; inc may be NULL. */
bool nvrtc_parse_log_in(const char *log, const char *main_path, const char *main_text,
                        const nvrtc_includes *inc, nvrtc_diag **diags, size_t *count);

/* The cache file for key: its hash under opts->cache_dir, or under
 * nvrtc-cache in the user's data folder; false + err when no path can be
 * made. */
bool nvrtc_cache_file(const nvrtc_opts *opts, const strbuf *key, char *out, size_t out_size,
                      cl_err *err);

/* Fills out from the cache file when it holds exactly key; false otherwise. */
bool nvrtc_cache_load(const char *file, const strbuf *key, nvrtc_output *out);

/* Writes out under key to file, atomically, creating its folder; failures
 * are ignored (the cache only saves time). */
void nvrtc_cache_store(const char *file, const strbuf *key, const nvrtc_output *out);

#endif
