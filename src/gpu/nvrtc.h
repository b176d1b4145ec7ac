/* nvrtc.h - compiling a learner's kernel file with NVRTC (no GPU needed).
 *
 * nvrtc_compile() reads a .cu file and compiles it for one real architecture
 * ("sm_90") into a CUBIN with -std=c++17, -lineinfo and ptxas's resource
 * report; fast math stays off.  The program is named by the file's real path,
 * so every message carries it.  The toolkit's headers (found beside libnvrtc,
 * or under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda) and the file's own folder
 * are on the include path.
 *
 * The source is untrusted.  The file itself must be a regular file inside
 * its folder (a link leading elsewhere is refused), and every #include is
 * checked by cudalab before NVRTC reads anything (gpu/nvrtc_includes.h):
 * only files of the kernel's folder and the shipped headers can be
 * included, and a refused include is reported as a compile error at its
 * line.  NVRTC then runs in a thread that, where the kernel offers Landlock,
 * can read nothing but those folders and the libraries it loads.  A
 * diagnostic quotes lines of the source and its local headers only.
 *
 * Compiled programs are cached in <cache>/nvrtc-cache/ (core/paths.h), keyed
 * by the source text, the text of the local headers it includes,
 * the architecture, the options and the NVRTC version.  A hit skips
 * compiling; an entry is used only when its whole key matches.
 *
 * Errors and warnings come back as diagnostics carrying the offending source
 * line, ready to show the way a compiler does:
 *   starter.cu:12:5: error: identifier "blockDim_x" is undefined
 *       int i = blockIdx.x * blockDim_x + threadIdx.x;
 *                            ^
 * Kernels are looked up by name, so learners declare them
 * `extern "C" __global__`: without extern "C", C++ mangles the name
 * (reduce_sum becomes _Z10reduce_sumPKfPfx) and nvrtc_kernel_missing()
 * explains that. */
#ifndef CUDALAB_GPU_NVRTC_H
#define CUDALAB_GPU_NVRTC_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

#define NVRTC_DEFAULT_ARCH "sm_90"
#define NVRTC_TEXT_MAX 512
#define NVRTC_FILE_MAX 1024
#define NVRTC_NAME_MAX 128
#define NVRTC_MAX_PARAMS 32
#define NVRTC_SOURCE_MAX ((size_t)4 << 20)   /* largest source file read */

typedef enum nvrtc_severity {
    NVRTC_SEV_ERROR,
    NVRTC_SEV_WARNING,
    NVRTC_SEV_REMARK,
} nvrtc_severity;

typedef struct nvrtc_diag {
    char file[NVRTC_FILE_MAX];   /* as the compiler named it; "" when none */
    int line;                    /* 1-based; 0 when the message names no line */
    int col;                     /* 1-based; 0 when unknown */
    nvrtc_severity severity;
    char message[NVRTC_TEXT_MAX];
    char source[NVRTC_TEXT_MAX]; /* the text of that line, no newline; "" unknown */
} nvrtc_diag;

typedef struct nvrtc_kernel {
    char name[NVRTC_NAME_MAX];   /* the symbol, as a launch looks it up */
    char base[NVRTC_NAME_MAX];   /* the name as written: name itself, or for a
                                    mangled _Z10reduce_sumPKfPfx "reduce_sum" */
    bool mangled;                /* not extern "C" */
    int nparams;
    /* One letter a parameter: 'x' 64-bit (a pointer or a long long), 'i'
     * 32-bit integer, 'f' float, 'd' double, 'h' 16-bit, 'c' 8-bit, 'b' an
     * aggregate passed by value. */
    char params[NVRTC_MAX_PARAMS + 1];
    int registers;               /* per thread; -1 unknown */
    int barriers;                /* -1 unknown */
    int shared_bytes;            /* static __shared__ bytes; -1 unknown */
    int stack_bytes;             /* -1 unknown */
    int spill_stores, spill_loads;  /* bytes; -1 unknown */
} nvrtc_kernel;

typedef struct nvrtc_output {
    bool compile_error;          /* the source did not compile: diags say why */
    bool cache_hit;
    double compile_ms;           /* 0 on a cache hit */
    char arch[16];               /* "sm_90" */
    char path[NVRTC_FILE_MAX];   /* the real path compiled */
    void *cubin;                 /* malloc'd; NULL unless compiled */
    size_t cubin_size;
    char *log;                   /* NVRTC's log as printed (malloc'd, "" when empty) */
    nvrtc_diag *diags;           /* errors and warnings, in log order */
    size_t ndiags;
    nvrtc_kernel *kernels;       /* every __global__ function, in PTX order */
    size_t nkernels;
} nvrtc_output;

typedef struct nvrtc_opts {
    const char *arch;            /* "sm_90"; NULL: NVRTC_DEFAULT_ARCH */
    const char *root;            /* the folder includes must stay in; NULL: the file's own */
    bool no_cache;               /* neither read nor write the cache */
    const char *cache_dir;       /* NULL: <cache folder>/nvrtc-cache */
} nvrtc_opts;

/* Compiles the file at path for arch (NULL: the caller found no device, so
 * NVRTC_DEFAULT_ARCH) into out (zeroed first; free with nvrtc_output_free
 * whatever the result).  true: out->cubin holds the program.  false: err says
 * why; when out->compile_error is set the source itself is at fault, err
 * holds the first error as "file:line:col: error: message" and out->diags all
 * of them; otherwise the file could not be read or NVRTC could not run. */
bool nvrtc_compile(const char *path, const char *arch, nvrtc_output *out, cl_err *err);
/* nvrtc_compile with options (opts may be NULL). */
bool nvrtc_compile_opts(const char *path, const nvrtc_opts *opts, nvrtc_output *out, cl_err *err);
void nvrtc_output_free(nvrtc_output *out);

/* Parses an NVRTC log into diagnostics (malloc'd array in *diags, count in
 * *count; both 0/NULL when the log has none).  main_path is the program name
 * the log was produced under and main_text that file's text (may be NULL):
 * they supply the source line of each diagnostic and the line of a kernel
 * ptxas complains about; no other file is read.  false only when out of
 * memory. */
bool nvrtc_parse_log(const char *log, const char *main_path, const char *main_text,
                     nvrtc_diag **diags, size_t *count);
/* Fills registers, barriers, shared, stack and spill figures of kernels from
 * the "ptxas info" lines of a log compiled with ptxas -v. */
void nvrtc_parse_usage(const char *log, nvrtc_kernel *kernels, size_t nkernels);
/* Lists the entry points of a PTX text (malloc'd array, how many in
 * *count).  false only when out of memory. */
bool nvrtc_parse_ptx(const char *ptx, nvrtc_kernel **kernels, size_t *count);

/* Writes diag as a compiler does: "file:line:col: severity: message", then
 * the source line and a caret under the column when known, each line ending
 * in '\n'.  The file is shown by its base name.  Returns the length snprintf
 * would have written. */
int nvrtc_diag_format(const nvrtc_diag *diag, char *buf, size_t buf_size);
/* Just the first line of nvrtc_diag_format, without the newline. */
int nvrtc_diag_headline(const nvrtc_diag *diag, char *buf, size_t buf_size);
const char *nvrtc_severity_name(nvrtc_severity severity);   /* "error", "warning", "remark" */
/* The first error among out's diagnostics, or NULL. */
const nvrtc_diag *nvrtc_first_error(const nvrtc_output *out);

/* The kernel called name in out, or NULL. */
const nvrtc_kernel *nvrtc_find_kernel(const nvrtc_output *out, const char *name);
/* Explains why name is not among out's kernels, in words a learner can act
 * on: a mangled kernel of that name (extern "C" missing), or the names that
 * do exist. */
void nvrtc_kernel_missing(const nvrtc_output *out, const char *name, char *buf, size_t buf_size);

/* NVRTC's version as "13.0"; false + err when NVRTC cannot be asked. */
bool nvrtc_version_text(char *buf, size_t buf_size, cl_err *err);

#endif
