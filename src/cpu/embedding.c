#include "cpu/embedding.h"

#include <string.h>

#include "cpu/parallel.h"

/* Fewer bytes than this per thread do not pay for the thread. */
#define EMBEDDING_MIN_BYTES_PER_THREAD 1048576.0

bool embedding_validate(const int32_t *idx, int tokens, int vocab, int64_t *bad_t)
{
    for (int t = 0; t < tokens; t++) {
        if (idx[t] < 0 || idx[t] >= vocab) {
            if (bad_t)
                *bad_t = t;
            return false;
        }
    }
    return true;
}

static void embedding_rows(const float *W, const int32_t *idx, float *out, int t0, int t1, int D)
{
    size_t row = (size_t)D * sizeof(float);
    for (int t = t0; t < t1; t++)
        memcpy(out + (int64_t)t * D, W + (int64_t)idx[t] * D, row);
}

void cpu_embedding(const float *table, const int32_t *idx, float *out, int tokens, int dim)
{
    if (tokens <= 0 || dim <= 0)
        return;
    embedding_rows(table, idx, out, 0, tokens, dim);
}

typedef struct embedding_job {
    const float *W;
    const int32_t *idx;
    float *out;
    int T, D;
} embedding_job;

static void embedding_part(void *ctx, int part, int nparts)
{
    const embedding_job *j = ctx;
    int t0 = (int)((int64_t)j->T * part / nparts);
    int t1 = (int)((int64_t)j->T * (part + 1) / nparts);
    embedding_rows(j->W, j->idx, j->out, t0, t1, j->D);
}

void cpu_embedding_mt(const float *table, const int32_t *idx, float *out, int tokens, int dim,
                      int threads)
{
    if (tokens <= 0 || dim <= 0)
        return;
    double bytes = (double)tokens * (double)dim * (double)sizeof(float);
    threads = parallel_threads(threads, bytes, EMBEDDING_MIN_BYTES_PER_THREAD);
    if (threads > tokens)
        threads = tokens;
    embedding_job j = {.W = table, .idx = idx, .out = out, .T = tokens, .D = dim};
    parallel_run(threads, embedding_part, &j);
}
