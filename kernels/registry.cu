// registry.cu - the tables of shipped launchers and raw kernels, merged from
// the topic files, and the library-wide state (last library error, shutdown).
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kcommon.cuh"
#include "kernel_names.h"
#include "ktune.h"

#define REGISTRY_MAX 128

namespace {

struct tables {
    shipped_kernel shipped[REGISTRY_MAX];
    size_t n_shipped = 0;
    raw_kernel raw[REGISTRY_MAX];
    size_t n_raw = 0;
    shipped_kernel tune[REGISTRY_MAX];
    size_t n_tune = 0;
};

template <typename T>
void append(T *dst, size_t *n, const T *src, size_t count)
{
    for (size_t i = 0; i < count && *n < REGISTRY_MAX; ++i) dst[(*n)++] = src[i];
}

const tables &all_tables()
{
    static const tables t = [] {
        tables r;
        typedef const shipped_kernel *(*shipped_fn)(size_t *);
        typedef const raw_kernel *(*raw_fn)(size_t *);
        const shipped_fn shipped[] = {reduce_table, matmul_table, embedding_table, basics_table};
        const raw_fn raw[] = {reduce_raw_table, matmul_raw_table, embedding_raw_table,
                              basics_raw_table};
        const shipped_fn tune[] = {reduce_tune_table, matmul_tune_table, embedding_tune_table};
        for (shipped_fn f : shipped) {
            size_t n = 0;
            const shipped_kernel *k = f(&n);
            append(r.shipped, &r.n_shipped, k, n);
        }
        for (raw_fn f : raw) {
            size_t n = 0;
            const raw_kernel *k = f(&n);
            append(r.raw, &r.n_raw, k, n);
        }
        for (shipped_fn f : tune) {
            size_t n = 0;
            const shipped_kernel *k = f(&n);
            append(r.tune, &r.n_tune, k, n);
        }
        return r;
    }();
    return t;
}

char library_error[512];

} // namespace

extern "C" const shipped_kernel *kernels_shipped(size_t *count)
{
    const tables &t = all_tables();
    *count = t.n_shipped;
    return t.shipped;
}

extern "C" const shipped_kernel *kernels_find(const char *name)
{
    if (!name) return nullptr;
    const tables &t = all_tables();
    for (size_t i = 0; i < t.n_shipped; ++i)
        if (strcmp(t.shipped[i].name, name) == 0) return &t.shipped[i];
    return nullptr;
}

extern "C" const char *kernels_problem_of(const char *name)
{
    const shipped_kernel *k = kernels_find(name);
    return k ? k->problem : nullptr;
}

extern "C" const char *kernels_inputs_of(const char *name)
{
    const shipped_kernel *k = kernels_find(name);
    return k && k->gemm_bf16 ? "bf16" : nullptr;
}

extern "C" const shipped_kernel *kernels_tune_variants(size_t *count)
{
    const tables &t = all_tables();
    *count = t.n_tune;
    return t.tune;
}

extern "C" const raw_kernel *kernels_raw(size_t *count)
{
    const tables &t = all_tables();
    *count = t.n_raw;
    return t.raw;
}

extern "C" const raw_kernel *kernels_raw_find(const char *name)
{
    if (!name) return nullptr;
    const tables &t = all_tables();
    for (size_t i = 0; i < t.n_raw; ++i)
        if (strcmp(t.raw[i].name, name) == 0) return &t.raw[i];
    return nullptr;
}

extern "C" size_t kernels_reduce_scratch_bytes(size_t n) { return k_reduce_scratch_bytes(n); }

void k_set_library_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(library_error, sizeof library_error, fmt, ap);
    va_end(ap);
}

extern "C" const char *kernels_library_error(void) { return library_error; }

extern "C" void kernels_shutdown(void)
{
    k_matmul_shutdown();
    k_reduce_shutdown();
}
