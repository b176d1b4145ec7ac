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

size_t pipe_dev_bytes(int64_t rows, size_t scratch)
{
    size_t s = (size_t)prep_stride(rows) * 4;
    return 2 * prep_table_bytes(rows) + (2 * PREP_NUM + PREP_FEATURES + PREP_HIDDEN) * s +
           PREP_FEATURES * PREP_HIDDEN * 4 + SMALL_WORDS * 4 + scratch;
}

bool pipe_dev_alloc(pipe_dev *dev, const prep_state *st, cl_err *err)
{
    memset(dev, 0, sizeof *dev);
    size_t scratch = pipe_scratch_bytes(st->n);
    if (scratch == 0)
        return err_set(err, "CUB could not size its temporary storage for %lld rows",
                       (long long)st->n);
    if (!buffer_check_free(pipe_dev_bytes(st->n, scratch), err))
        return err_prefix(err, "the pipeline at %lld rows", (long long)st->n);
    size_t s = (size_t)st->stride * 4;
    if (!buffer_alloc(&dev->raw, prep_table_bytes(st->n), err) ||
        !buffer_alloc(&dev->kept, prep_table_bytes(st->n), err) ||
        !buffer_alloc(&dev->filled, PREP_NUM * s, err) ||
        !buffer_alloc(&dev->t, PREP_NUM * s, err) ||
        !buffer_alloc(&dev->X, PREP_FEATURES * s, err) ||
        !buffer_alloc(&dev->Y, PREP_HIDDEN * s, err) || !buffer_alloc(&dev->W, sizeof st->W, err) ||
        !buffer_alloc(&dev->small, SMALL_WORDS * 4, err) ||
        !buffer_alloc(&dev->scratch, scratch, err)) {
        pipe_dev_free(dev);
        return false;
    }
    pipe_bufs *b = &dev->b;
    prep_cols raw, kept;
    prep_cols_in(dev->raw.ptr, st->n, &raw);
    prep_cols_in(dev->kept.ptr, st->n, &kept);
    float *small = dev->small.ptr;
    b->n = st->n;
    b->stride = st->stride;
    b->num = raw.num;
    b->ts = raw.ts;
    b->pay = raw.pay;
    b->zone = raw.zone;
    b->label = raw.label;
    b->median = small + SMALL_MEDIAN;
    b->filled = dev->filled.ptr;
    b->count = (int32_t *)(small + SMALL_COUNT);
    b->kept_num = kept.num;
    b->kept_ts = kept.ts;
    b->kept_pay = kept.pay;
    b->kept_zone = kept.zone;
    b->kept_label = kept.label;
    b->t = dev->t.ptr;
    b->stats = small + SMALL_STATS;
    b->edges = small + SMALL_EDGES;
    b->counts = (int32_t *)(small + SMALL_COUNTS);
    b->gmean = small + SMALL_GMEAN;
    b->X = dev->X.ptr;
    b->W = dev->W.ptr;
    b->Y = dev->Y.ptr;
    b->scratch = dev->scratch.ptr;
    b->scratch_bytes = dev->scratch.bytes;
    if (!buffer_upload(&dev->W, st->W, sizeof st->W, 0, err)) {
        pipe_dev_free(dev);
        return false;
    }
    return true;
}

void pipe_dev_free(pipe_dev *dev)
{
    gpu_buffer *all[] = {&dev->raw, &dev->kept, &dev->filled, &dev->t, &dev->X,
                         &dev->Y,   &dev->W,    &dev->small,  &dev->scratch};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        buffer_free(all[i]);
    memset(dev, 0, sizeof *dev);
}

void *pipe_dev_col(const pipe_dev *dev, prep_col col)
{
    const pipe_bufs *b = &dev->b;
    long long s = b->stride;
    switch (col.what) {
    case PO_MEDIAN: return b->median;
    case PO_FILLED: return b->filled + col.col * s;
    case PO_COUNT: return b->count;
    case PO_KEPT_NUM: return b->kept_num + col.col * s;
    case PO_KEPT_TS: return b->kept_ts;
    case PO_KEPT_PAY: return b->kept_pay;
    case PO_KEPT_ZONE: return b->kept_zone;
    case PO_KEPT_LABEL: return b->kept_label;
    case PO_T: return b->t + col.col * s;
    case PO_STATS: return b->stats;
    case PO_EDGES: return b->edges;
    case PO_COUNTS: return b->counts;
    case PO_GMEAN: return b->gmean;
    case PO_X: return b->X + col.col * s;
    case PO_Y: return b->Y + col.col * s;
    default: return NULL;
    }
}

static bool up(void *dst, const void *src, size_t bytes, cudaStream_t s, cl_err *e)
{
    CUDA_CHECK(e, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s));
    return true;
}

bool pipe_dev_inputs(pipe_dev *dev, const prep_state *st, prep_step step, cudaStream_t stream,
                     cl_err *err)
{
    const pipe_bufs *b = &dev->b;
    size_t col = (size_t)st->stride * 4;
    int32_t m = (int32_t)st->m;
    bool ok = true;
    switch (step) {
    case PREP_FILL:
        ok = up(dev->raw.ptr, st->raw_block, prep_table_bytes(st->n), stream, err);
        break;
    case PREP_FILTER:
        ok = up(b->filled, st->filled, PREP_NUM * col, stream, err) &&
             up(b->ts, st->raw.ts, 4 * col, stream, err);    /* ts, pay, zone, label lie together */
        break;
    case PREP_TRANSFORM:
        ok = up(b->kept_num, st->kept.num, PREP_NUM * col, stream, err) &&
             up(b->kept_ts, st->kept.ts, col, stream, err);
        break;
    case PREP_STANDARDIZE:
        ok = up(b->t, st->t, PREP_NUM * col, stream, err);
        break;
    case PREP_BINNING:
        ok = up(b->kept_num, st->kept.num, col, stream, err);
        break;
    case PREP_ENCODE:
        ok = up(b->kept_pay, st->kept.pay, 2 * col, stream, err);   /* pay, zone */
        break;
    case PREP_GROUPBY:
        ok = up(b->kept_zone, st->kept.zone, 2 * col, stream, err); /* zone, label */
        break;
    case PREP_GEMM:
        ok = up(b->X, st->X, PREP_FEATURES * col, stream, err);
        break;
    default:
        return true;
    }
    if (ok && step > PREP_FILTER)
        ok = up(b->count, &m, sizeof m, stream, err);
    if (ok)
        CUDA_CHECK(err, cudaStreamSynchronize(stream));   /* m lives on this stack */
    return ok;
}

bool pipe_dev_poison(pipe_dev *dev, prep_step step, cudaStream_t stream, cl_err *err)
{
    prep_col cols[PREP_MAX_OUTS];
    for (int k = PREP_FILL; k <= PREP_GEMM; k++) {
        if (step != PREP_NSTEPS && step != (prep_step)k)
            continue;
        int nc = prep_step_outputs((prep_step)k, cols);
        for (int i = 0; i < nc; i++) {
            int64_t count = prep_out_count(cols[i].what, dev->b.n, dev->b.stride);
            CUDA_CHECK_LAUNCH(err, pipe_poison(pipe_dev_col(dev, cols[i]), (size_t)count,
                                               CHECK_POISON_BITS, stream));
        }
    }
    if (step == PREP_NSTEPS || step == PREP_LOAD)
        CUDA_CHECK_LAUNCH(err,
                          pipe_poison(dev->raw.ptr, dev->raw.bytes / 4, CHECK_POISON_BITS, stream));
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

prep_src pipe_dev_src(pipe_dev_reader *reader)
{
    return (prep_src){dev_get, reader};
}
