// matmul_warptile.cu - rung 7, warp tiles, as the lab ships it: which of
// the three kernels (matmul_wt.cuh) a size takes, the tuning variants of
// all three in one table, and the resources of the kernel that runs.
#include "matmul_wt.cuh"

cudaError_t launch_sgemm_warptile(int M, int N, int K, const float *A, const float *B, float *C,
                                  cudaStream_t stream)
{
    if (!k_mm_sizes_ok(M, N, K, A, B, C)) return cudaErrorInvalidValue;
    bool small = false;
    KCHECK(k_mm_small_grid(M, N, &small));
    if (!small) return wt_big_run(M, N, K, A, B, C, stream);
    if (k_mm_vec_ok(N, K, A, B, C) && wt_whole<WT_SMALL_TILE>(M, N, K))
        return wt_small_run(M, N, K, A, B, C, stream);
    return wt_small_edge_run(M, N, K, A, B, C, stream);
}

// ---- tuning variants ----------------------------------------------------------------------------
// Each kernel's file lists its own variants; the table is theirs in this
// order (two stages, pipelined, lean: 39 in all).
typedef const wt_variant *(*wt_table_fn)(size_t *n);
static const wt_table_fn wt_tables[] = {wt_twostage_variants, wt_pipe_variants, wt_lean_variants};
#define WT_NTABLES (sizeof wt_tables / sizeof wt_tables[0])
#define WT_MAX_VARIANTS 64

const shipped_kernel *k_warptile_tune(size_t *count)
{
    static shipped_kernel t[WT_MAX_VARIANTS];
    static size_t filled = 0;
    if (filled == 0) {
        for (size_t k = 0; k < WT_NTABLES; ++k) {
            size_t nv = 0;
            const wt_variant *v = wt_tables[k](&nv);
            for (size_t i = 0; i < nv && filled < WT_MAX_VARIANTS; ++i)
                t[filled++] = shipped_kernel{.name = v[i].name, .problem = "sgemm", .sgemm = v[i].launch};
        }
    }
    *count = filled;
    return t;
}

bool k_warptile_resources(const char *name, int M, int N, kernel_resources *out)
{
    if (strcmp(name, "sgemm_warptile") == 0) {
        bool small = false;
        if (k_mm_small_grid(M, N, &small) != cudaSuccess) return false;
        // Whole tiles in M and N: the lean kernels (K is taken to be whole too).
        if (small)
            return wt_whole<WT_SMALL_TILE>(M, N, 16) ? wt_small_resources(out)
                                                     : wt_small_edge_resources(out);
        return wt_whole<WT_BIG_TILE>(M, N, 8) ? wt_big_resources(out) : wt_edge_resources(out);
    }
    for (size_t k = 0; k < WT_NTABLES; ++k) {
        size_t nv = 0;
        const wt_variant *v = wt_tables[k](&nv);
        for (size_t i = 0; i < nv; ++i)
            if (strcmp(name, v[i].name) == 0) return v[i].resources(out);
    }
    return false;
}

const char *k_warptile_shipped_as(const char *rung, int M, int N)
{
    bool small = false;
    if (strcmp(rung, "sgemm_warptile") != 0 || k_mm_small_grid(M, N, &small) != cudaSuccess)
        return NULL;
    if (small) return wt_whole<WT_SMALL_TILE>(M, N, 16) ? WT_SMALL_NAME : WT_SMALL_EDGE_NAME;
    return wt_whole<WT_BIG_TILE>(M, N, 8) ? WT_BIG_NAME : WT_EDGE_NAME;
}
