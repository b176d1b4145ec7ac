#include "tui/tui_prof.h"

#include <string.h>

#include "catalog/experiments_list.h"

typedef struct prof_rows {
    const char *experiment;
    const char *prefix;     /* measurement ids start with it */
    const char *kernel;     /* NULL: copies only */
} prof_rows;

/* Longest prefixes first where one is the start of another. */
static const prof_rows rows[] = {
    {"transfers", "h2d_", NULL},
    {"transfers", "d2h_", NULL},
    {"transfers", "small_copies", NULL},
    {"transfers", "compute_vs_copy", "prof_scale"},
    {"overlap", "overlap_", "prof_fma"},
    {"stride", "stride_", "prof_stride"},
    {"gemv", "gemv_row_warp", "prof_gemv_warp"},
    {"gemv", "gemv_row", "prof_gemv_row"},
    {"gemv", "gemv_col", "prof_gemv_col"},
    {"blocksize", "block_", "prof_scale"},
    {"transpose", "transpose_copy", "prof_copy_tile"},
    {"transpose", "transpose_naive", "prof_transpose_naive"},
    {"transpose", "transpose_tiled", "prof_transpose_tiled"},
    {"transpose", "transpose_padded", "prof_transpose_padded"},
    {"timing", "timing_first", "prof_first"},
    {"timing", "timing_steady", "prof_first"},
    {"timing", "timing_", "prof_fma"},
    {"roofline", "roof_", "prof_fma"},
    {"divergence", "div_", "bx_branch"},
    {"occupancy", "occ_smem_", "occ_r8"},
    {"occupancy", "occ_spill", "occ_spill"},
    {"occupancy", "occ_r128", "occ_r128"},
    {"occupancy", "occ_r64", "occ_r64"},
    {"occupancy", "occ_r32", "occ_r32"},
    {"occupancy", "occ_r8", "occ_r8"},
    {"hierarchy", "lvl_", "bx_levels"},
    {"fences", "fence_", "bx_fence"},
    {"peer", "peer_", NULL},
};

bool tui_prof_lab(const lab *the_lab)
{
    return the_lab && experiments_problem(the_lab->problem);
}

static const prof_rows *find(const char *variant)
{
    if (!variant)
        return NULL;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (strncmp(variant, rows[i].prefix, strlen(rows[i].prefix)) == 0)
            return &rows[i];
    return NULL;
}

const char *tui_prof_experiment(const char *variant)
{
    const prof_rows *r;
    static const char *const problems[] = {EXPERIMENTS_PROBLEM, EXPERIMENTS_BASICS,
                                           EXPERIMENTS_MULTIGPU};
    for (size_t p = 0; p < sizeof problems / sizeof problems[0]; p++) {
        size_t n = 0;
        const char *const *ids = experiments_ids_of(problems[p], &n);
        for (size_t i = 0; variant && i < n; i++)
            if (strcmp(ids[i], variant) == 0)
                return ids[i];
    }
    r = find(variant);
    return r ? r->experiment : NULL;
}

/* The kernel an experiment's own row stands for: its main one. */
static const struct {
    const char *experiment, *kernel;
} main_kernel[] = {
    {"transfers", "prof_scale"},  {"overlap", "prof_fma"},   {"stride", "prof_stride"},
    {"gemv", "prof_gemv_row"},    {"blocksize", "prof_scale"}, {"transpose", "prof_transpose_naive"},
    {"timing", "prof_first"},     {"roofline", "prof_fma"},
    {"divergence", "bx_branch"},  {"occupancy", "occ_r8"},
    {"hierarchy", "bx_levels"},   {"fences", "bx_fence"},
};

const char *tui_prof_kernel(const char *variant)
{
    const prof_rows *r = find(variant);
    if (r)
        return r->kernel;
    for (size_t i = 0; variant && i < sizeof main_kernel / sizeof main_kernel[0]; i++)
        if (strcmp(main_kernel[i].experiment, variant) == 0)
            return main_kernel[i].kernel;
    return NULL;
}
