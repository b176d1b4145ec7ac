/* probcap.c - what a declared problem's buffers hold at a size, in
 * elements and bytes, and the sizes its Lua reference may take: at most
 * PROBDECL_LUA_REF_MAX elements in all (lab/probdecl.h), so that `cudalab
 * run --size` refuses a larger one before anything runs and says which
 * would do. */
#include "lab/probdecl.h"

#include <stdio.h>

bool probdecl_elements(const problem_decl *decl, const problem_dims *dims, size_t *elems,
                       cl_err *err)
{
    *elems = 0;
    for (int i = 0; i < decl->nargs; i++) {
        size_t n = 0;
        if (!decl->args[i].buffer)
            continue;
        if (!probdecl_length(decl, i, dims, &n, err))
            return false;
        *elems += n;
    }
    return true;
}

double probdecl_buffer_bytes(const problem_decl *decl, const problem_dims *dims)
{
    double bytes = 0.0;
    for (int i = 0; i < decl->nargs; i++) {
        size_t n = 0;
        if (!decl->args[i].buffer)
            continue;
        if (!probdecl_length(decl, i, dims, &n, NULL))
            return -1.0;
        bytes += (double)n * (double)decl_type_size(decl->args[i].type);
    }
    return bytes;
}

/* Whether decl's reference is a Lua function that may not run at dims,
 * its buffers holding more than PROBDECL_LUA_REF_MAX elements in all
 * (*elems: how many); false as well when a length fails (the loader
 * reports it). */
static bool over_cap(const problem_decl *decl, const problem_dims *dims, size_t *elems)
{
    *elems = 0;
    if (decl->ref != REF_LUA || !probdecl_elements(decl, dims, elems, NULL))
        return false;
    return *elems > PROBDECL_LUA_REF_MAX;
}

/* Whether a Lua reference may take decl at the one-dim size n. */
static bool fits(const problem_decl *decl, int64_t n)
{
    problem_dims d = {.ndims = 1, .n = n};
    d.dim[0] = n;
    size_t elems = 0;
    return probdecl_elements(decl, &d, &elems, NULL) && elems <= PROBDECL_LUA_REF_MAX;
}

/* n as a size label: "2^21" for a power of two, else its digits. */
static void label_of(int64_t n, char *label, size_t size)
{
    int k = 0;
    while (k < 62 && ((int64_t)1 << k) < n)
        k++;
    if (((int64_t)1 << k) == n && k >= 4)
        snprintf(label, size, "2^%d", k);
    else
        snprintf(label, size, "%lld", (long long)n);
}

/* The largest one-dim size within decl's limits that fits, into label
 * (its lengths taken to grow with the dim, and checked back through
 * probdecl_parse, which asks the problem's valid function); false when
 * none is found. */
static bool bisect(const problem_decl *decl, char *label, size_t size)
{
    int64_t lo = decl->min[0], hi = decl->max[0];
    if (decl->ndims != 1 || lo > hi || !fits(decl, lo))
        return false;
    while (lo < hi) {   /* fits(lo) holds */
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (fits(decl, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    problem_dims d;
    label_of(lo, label, size);
    return probdecl_parse(decl, label, &d, NULL);
}

bool probdecl_largest_ref_size(const problem_decl *decl, char *const *sizes, size_t n, char *label,
                               size_t label_size)
{
    if (bisect(decl, label, label_size))
        return true;
    size_t best = 0;
    const char *pick = NULL;
    for (size_t i = 0; i < n; i++) {
        problem_dims d;
        size_t elems = 0;
        if (probdecl_parse(decl, sizes[i], &d, NULL) && probdecl_elements(decl, &d, &elems, NULL) &&
            elems <= PROBDECL_LUA_REF_MAX && (!pick || elems > best)) {
            pick = sizes[i];
            best = elems;
        }
    }
    if (pick)
        snprintf(label, label_size, "%s", pick);
    return pick != NULL;
}

bool probdecl_ref_cap_check(const problem_decl *decl, const problem_dims *dims,
                            char *const *sizes, size_t n, cl_err *err)
{
    size_t elems = 0;
    if (!over_cap(decl, dims, &elems))
        return true;
    char best[128], fits[160] = "";
    if (probdecl_largest_ref_size(decl, sizes, n, best, sizeof best))
        snprintf(fits, sizeof fits, "; the largest size that fits is %s", best);
    return err_set(err, "problem %s has a Lua reference, which runs only where the buffers hold "
                        "at most " PROBDECL_LUA_REF_MAX_TEXT " elements in all (%zu); this "
                        "size's hold %zu%s",
                   decl->name, PROBDECL_LUA_REF_MAX, elems, fits);
}
