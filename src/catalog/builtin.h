/* builtin.h - computations cudalab knows in C, which a lab's declared
 * problem may name (lua/problems.md, "builtin").
 *
 * Each entry says what it is called, which roles its arguments play (a
 * buffer or a scalar, of which type), and what it brings: a
 * double-precision reference, CPU baselines (one thread and every thread),
 * a library row on the GPU, and the family of shipped kernels (rungs) that
 * compute it.  This is the CUDA-free description the lab checker and the
 * parent read; the worker's engine holds the code of each entry
 * (engine/builtin.h).  Adding a computation is one entry here and one
 * there. */
#ifndef CUDALAB_CATALOG_BUILTIN_H
#define CUDALAB_CATALOG_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>

#define BUILTIN_MAX_ROLES 8

typedef struct builtin_role {
    const char *name;         /* "input" */
    bool buffer;              /* else a scalar */
    bool output;              /* a buffer the computation writes */
    const char *type;         /* "f32", "u8", "i64", ... */
    const char *shape;        /* the length a buffer must have, in words: "n", "1", "T*D" */
} builtin_role;

typedef struct builtin_desc {
    const char *name;         /* "sum" */
    const char *summary;      /* one line */
    builtin_role roles[BUILTIN_MAX_ROLES];
    int nroles;
    bool cpu;                 /* has CPU baselines */
    const char *library;      /* its library row's id ("cub", "cub_scan"), or NULL */
    const char *library_label;/* "CUB", ... */
    const char *kernels;      /* the problem name its shipped kernels are registered under
                               * (kernels/kernels.h), or NULL */
} builtin_desc;

/* The entry called name, or NULL. */
const builtin_desc *builtin_find(const char *name);
/* Every entry, *count of them. */
const builtin_desc *builtin_all(size_t *count);
/* The names of every entry, comma-separated, for messages. */
const char *builtin_names(void);

#endif
