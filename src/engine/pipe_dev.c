/* pipe_dev.c - the pipeline's state in device memory: allocation after one
 * free-memory check, a step's inputs copied from the canonical state, its
 * outputs poisoned, and its outputs read back a column at a time. */
#include <stdio.h>
#include <string.h>

#include "cpu/check.h"
#include "engine/pipe.h"
#include "gpu/cudacheck.h"

/* The small outputs, one allocation: median, stats, edges, count, counts, gmean. */
#define SMALL_MEDIAN 0
#define SMALL_STATS (SMALL_MEDIAN + PREP_NUM)
#define SMALL_EDGES (SMALL_STATS + 2 * PREP_NUM)
#define SMALL_COUNT (SMALL_EDGES + 32)
#define SMALL_COUNTS (SMALL_COUNT + 32)
#define SMALL_GMEAN (SMALL_COUNTS + PREP_ZONES)
#define SMALL_WORDS (SMALL_GMEAN + PREP_ZONES)

_Static_assert(PIPE_NUM == PREP_NUM && PIPE_SKEWED == PREP_SKEWED && PIPE_PAY == PREP_PAY &&
                   PIPE_ZONES == PREP_ZONES && PIPE_BINS == PREP_BINS &&
                   PIPE_FEATURES == PREP_FEATURES && PIPE_HIDDEN == PREP_HIDDEN &&
                   PIPE_CUTOFF_S == PREP_CUTOFF_DAY * PREP_DAY && (int)PIPE_FILL == (int)PREP_FILL &&
                   (int)PIPE_GEMM == (int)PREP_GEMM && PREP_X_HOUR == 8 && PREP_X_DOW == 9 &&
                   PREP_X_BIN == 10 && PREP_X_FREQ == 11 && PREP_X_PAY == 12 &&
                   PREP_X_TARGET == 18,
               "kernels/pipeline.h and cpu/prep_data.h must describe the same pipeline");

size_t pipe_dev_bytes(int64_t n, size_t scratch)
{
    size_t s = (size_t)prep_stride(n) * 4;
    return 2 * prep_table_bytes(n) + (2 * PREP_NUM + PREP_FEATURES + PREP_HIDDEN) * s +
           PREP_FEATURES * PREP_HIDDEN * 4 + SMALL_WORDS * 4 + scratch;
}

bool pipe_dev_alloc(pipe_dev *d, const prep_state *st, cl_err *e)
{
    memset(d, 0, sizeof *d);
    size_t scratch = pipe_scratch_bytes(st->n);
    if (scratch == 0)
        return err_set(e, "CUB could not size its temporary storage for %lld rows",
                       (long long)st->n);
    if (!buffer_check_free(pipe_dev_bytes(st->n, scratch), e))
        return err_prefix(e, "the pipeline at %lld rows", (long long)st->n);
    size_t s = (size_t)st->stride * 4;
    if (!buffer_alloc(&d->raw, prep_table_bytes(st->n), e) ||
        !buffer_alloc(&d->kept, prep_table_bytes(st->n), e) ||
        !buffer_alloc(&d->filled, PREP_NUM * s, e) || !buffer_alloc(&d->t, PREP_NUM * s, e) ||
        !buffer_alloc(&d->X, PREP_FEATURES * s, e) || !buffer_alloc(&d->Y, PREP_HIDDEN * s, e) ||
        !buffer_alloc(&d->W, sizeof st->W, e) || !buffer_alloc(&d->small, SMALL_WORDS * 4, e) ||
        !buffer_alloc(&d->scratch, scratch, e)) {
        pipe_dev_free(d);
        return false;
    }
    pipe_bufs *b = &d->b;
    prep_cols raw, kept;
    prep_cols_in(d->raw.ptr, st->n, &raw);
    prep_cols_in(d->kept.ptr, st->n, &kept);
    float *small = d->small.ptr;
    b->n = st->n;
    b->stride = st->stride;
    b->num = raw.num;
    b->ts = raw.ts;
    b->pay = raw.pay;
    b->zone = raw.zone;
    b->label = raw.label;
    b->median = small + SMALL_MEDIAN;
    b->filled = d->filled.ptr;
    b->count = (int32_t *)(small + SMALL_COUNT);
    b->kept_num = kept.num;
    b->kept_ts = kept.ts;
    b->kept_pay = kept.pay;
    b->kept_zone = kept.zone;
    b->kept_label = kept.label;
    b->t = d->t.ptr;
    b->stats = small + SMALL_STATS;
    b->edges = small + SMALL_EDGES;
    b->counts = (int32_t *)(small + SMALL_COUNTS);
    b->gmean = small + SMALL_GMEAN;
    b->X = d->X.ptr;
    b->W = d->W.ptr;
    b->Y = d->Y.ptr;
    b->scratch = d->scratch.ptr;
    b->scratch_bytes = d->scratch.bytes;
    if (!buffer_upload(&d->W, st->W, sizeof st->W, 0, e)) {
        pipe_dev_free(d);
        return false;
    }
    return true;
}

void pipe_dev_free(pipe_dev *d)
{
    gpu_buffer *all[] = {&d->raw, &d->kept, &d->filled, &d->t, &d->X,
                         &d->Y,   &d->W,    &d->small,  &d->scratch};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        buffer_free(all[i]);
    memset(d, 0, sizeof *d);
}

void *pipe_dev_col(const pipe_dev *d, prep_col c)
{
    const pipe_bufs *b = &d->b;
    long long s = b->stride;
    switch (c.what) {
    case PO_MEDIAN: return b->median;
    case PO_FILLED: return b->filled + c.col * s;
    case PO_COUNT: return b->count;
    case PO_KEPT_NUM: return b->kept_num + c.col * s;
    case PO_KEPT_TS: return b->kept_ts;
    case PO_KEPT_PAY: return b->kept_pay;
    case PO_KEPT_ZONE: return b->kept_zone;
    case PO_KEPT_LABEL: return b->kept_label;
    case PO_T: return b->t + c.col * s;
    case PO_STATS: return b->stats;
    case PO_EDGES: return b->edges;
    case PO_COUNTS: return b->counts;
    case PO_GMEAN: return b->gmean;
    case PO_X: return b->X + c.col * s;
    case PO_Y: return b->Y + c.col * s;
    default: return NULL;
    }
}

static bool up(void *dst, const void *src, size_t bytes, cudaStream_t s, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    return true;
}

bool pipe_dev_inputs(pipe_dev *d, const prep_state *st, prep_step step, cudaStream_t s, cl_err *e)
{
    const pipe_bufs *b = &d->b;
    size_t col = (size_t)st->stride * 4;
    int32_t m = (int32_t)st->m;
    bool ok = true;
    switch (step) {
    case PREP_FILL:
        ok = up(d->raw.ptr, st->raw_block, prep_table_bytes(st->n), s, e);
        break;
    case PREP_FILTER:
        ok = up(b->filled, st->filled, PREP_NUM * col, s, e) &&
             up(b->ts, st->raw.ts, 4 * col, s, e);    /* ts, pay, zone, label lie together */
        break;
    case PREP_TRANSFORM:
        ok = up(b->kept_num, st->kept.num, PREP_NUM * col, s, e) &&
             up(b->kept_ts, st->kept.ts, col, s, e);
        break;
    case PREP_STANDARDIZE:
        ok = up(b->t, st->t, PREP_NUM * col, s, e);
        break;
    case PREP_BINNING:
        ok = up(b->kept_num, st->kept.num, col, s, e);
        break;
    case PREP_ENCODE:
        ok = up(b->kept_pay, st->kept.pay, 2 * col, s, e);   /* pay, zone */
        break;
    case PREP_GROUPBY:
        ok = up(b->kept_zone, st->kept.zone, 2 * col, s, e); /* zone, label */
        break;
    case PREP_GEMM:
        ok = up(b->X, st->X, PREP_FEATURES * col, s, e);
        break;
    default:
        return true;
    }
    if (ok && step > PREP_FILTER)
        ok = up(b->count, &m, sizeof m, s, e);
    if (ok)
        CUDA_CHECK(e, cudaStreamSynchronize(s));   /* m lives on this stack */
    return ok;
}

bool pipe_dev_poison(pipe_dev *d, prep_step step, cudaStream_t s, cl_err *e)
{
    prep_col cols[PREP_MAX_OUTS];
    for (int k = PREP_FILL; k <= PREP_GEMM; k++) {
        if (step != PREP_NSTEPS && step != (prep_step)k)
            continue;
        int nc = prep_step_outputs((prep_step)k, cols);
        for (int i = 0; i < nc; i++) {
            int64_t count = prep_out_count(cols[i].what, d->b.n, d->b.stride);
            CUDA_CHECK_LAUNCH(e, pipe_poison(pipe_dev_col(d, cols[i]), (size_t)count,
                                             CHECK_POISON_BITS, s));
        }
    }
    if (step == PREP_NSTEPS || step == PREP_LOAD)
        CUDA_CHECK_LAUNCH(e, pipe_poison(d->raw.ptr, d->raw.bytes / 4, CHECK_POISON_BITS, s));
    return true;
}

/* Copies one output column into buf; false + e on a CUDA failure. */
static bool fetch(const pipe_dev_reader *r, prep_col c, int64_t count, void *buf, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(buf, pipe_dev_col(r->d, c), (size_t)count * 4,
                                  cudaMemcpyDeviceToHost, r->stream));
    CUDA_CHECK(e, cudaStreamSynchronize(r->stream));
    return true;
}

static const void *dev_get(void *ud, prep_col c, int64_t count, void *buf, cl_err *e)
{
    if (count > 0 && !fetch(ud, c, count, buf, e))
        return NULL;
    return buf;
}

prep_src pipe_dev_src(pipe_dev_reader *r)
{
    return (prep_src){dev_get, r};
}
