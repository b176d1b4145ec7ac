#include "cpu/prep_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/parallel.h"

#define CHECK_MIN_ROWS 262144.0
#define MAX_PARTS 64

/* ---- the outputs ------------------------------------------------------------------- */

int prep_step_outputs(prep_step step, prep_col *out)
{
    int n = 0;
    switch (step) {
    case PREP_FILL:
        out[n++] = (prep_col){PO_MEDIAN, 0};
        for (int c = 0; c < PREP_NUM; c++)
            out[n++] = (prep_col){PO_FILLED, c};
        break;
    case PREP_FILTER:
        out[n++] = (prep_col){PO_COUNT, 0};
        for (int c = 0; c < PREP_NUM; c++)
            out[n++] = (prep_col){PO_KEPT_NUM, c};
        out[n++] = (prep_col){PO_KEPT_TS, 0};
        out[n++] = (prep_col){PO_KEPT_PAY, 0};
        out[n++] = (prep_col){PO_KEPT_ZONE, 0};
        out[n++] = (prep_col){PO_KEPT_LABEL, 0};
        break;
    case PREP_TRANSFORM:
        for (int c = 0; c < PREP_NUM; c++)
            out[n++] = (prep_col){PO_T, c};
        out[n++] = (prep_col){PO_X, PREP_X_HOUR};
        out[n++] = (prep_col){PO_X, PREP_X_DOW};
        break;
    case PREP_STANDARDIZE:
        out[n++] = (prep_col){PO_STATS, 0};
        for (int c = 0; c < PREP_NUM; c++)
            out[n++] = (prep_col){PO_X, PREP_X_Z + c};
        break;
    case PREP_BINNING:
        out[n++] = (prep_col){PO_EDGES, 0};
        out[n++] = (prep_col){PO_X, PREP_X_BIN};
        break;
    case PREP_ENCODE:
        out[n++] = (prep_col){PO_COUNTS, 0};
        out[n++] = (prep_col){PO_X, PREP_X_FREQ};
        for (int p = 0; p < PREP_PAY; p++)
            out[n++] = (prep_col){PO_X, PREP_X_PAY + p};
        break;
    case PREP_GROUPBY:
        out[n++] = (prep_col){PO_GMEAN, 0};
        out[n++] = (prep_col){PO_X, PREP_X_TARGET};
        break;
    case PREP_GEMM:
        for (int j = 0; j < PREP_HIDDEN; j++)
            out[n++] = (prep_col){PO_Y, j};
        break;
    default:
        break;
    }
    return n;
}

size_t prep_check_buf_bytes(int64_t rows)
{
    int64_t s = prep_stride(rows);
    return 4 * (size_t)(s > PREP_ZONES ? s : PREP_ZONES);
}

bool prep_out_is_int(prep_out out)
{
    return out == PO_COUNT || out == PO_KEPT_TS || out == PO_KEPT_PAY || out == PO_KEPT_ZONE ||
           out == PO_COUNTS;
}

int64_t prep_out_count(prep_out out, int64_t rows, int64_t kept)
{
    switch (out) {
    case PO_MEDIAN: return PREP_NUM;
    case PO_FILLED: return rows;
    case PO_COUNT: return 1;
    case PO_STATS: return 2 * PREP_NUM;
    case PO_EDGES: return PREP_EDGES;
    case PO_COUNTS:
    case PO_GMEAN: return PREP_ZONES;
    default: return kept;
    }
}

void prep_col_name(prep_col col, char *buf, size_t buf_size)
{
    switch (col.what) {
    case PO_MEDIAN: snprintf(buf, buf_size, "median"); return;
    case PO_FILLED: snprintf(buf, buf_size, "filled[%s]", prep_num_name(col.col)); return;
    case PO_COUNT: snprintf(buf, buf_size, "count"); return;
    case PO_KEPT_NUM: snprintf(buf, buf_size, "kept_num[%s]", prep_num_name(col.col)); return;
    case PO_KEPT_TS: snprintf(buf, buf_size, "kept_ts"); return;
    case PO_KEPT_PAY: snprintf(buf, buf_size, "kept_pay"); return;
    case PO_KEPT_ZONE: snprintf(buf, buf_size, "kept_zone"); return;
    case PO_KEPT_LABEL: snprintf(buf, buf_size, "kept_label"); return;
    case PO_T: snprintf(buf, buf_size, "t[%s]", prep_num_name(col.col)); return;
    case PO_STATS: snprintf(buf, buf_size, "stats"); return;
    case PO_EDGES: snprintf(buf, buf_size, "edges"); return;
    case PO_COUNTS: snprintf(buf, buf_size, "counts"); return;
    case PO_GMEAN: snprintf(buf, buf_size, "gmean"); return;
    case PO_X: snprintf(buf, buf_size, "X[%s]", prep_feature_name(col.col)); return;
    case PO_Y: snprintf(buf, buf_size, "Y[%d]", col.col); return;
    default: snprintf(buf, buf_size, "?"); return;
    }
}

void *prep_state_col(const prep_state *st, prep_col col)
{
    int64_t s = st->stride;
    switch (col.what) {
    case PO_MEDIAN: return (void *)st->median;
    case PO_FILLED: return st->filled + col.col * s;
    case PO_COUNT: return NULL;
    case PO_KEPT_NUM: return st->kept.num + col.col * s;
    case PO_KEPT_TS: return st->kept.ts;
    case PO_KEPT_PAY: return st->kept.pay;
    case PO_KEPT_ZONE: return st->kept.zone;
    case PO_KEPT_LABEL: return st->kept.label;
    case PO_T: return st->t + col.col * s;
    case PO_STATS: return (void *)st->stats;
    case PO_EDGES: return (void *)st->edges;
    case PO_COUNTS: return st->counts;
    case PO_GMEAN: return st->gmean;
    case PO_X: return st->X + col.col * s;
    case PO_Y: return st->Y + col.col * s;
    default: return NULL;
    }
}

static const void *state_get(void *ud, prep_col c, int64_t count, void *buf, cl_err *e)
{
    const prep_state *st = ud;
    (void)count;
    (void)e;
    if (c.what == PO_COUNT) {
        int32_t m = (int32_t)st->m;
        memcpy(buf, &m, sizeof m);
        return buf;
    }
    return prep_state_col(st, c);
}

prep_src prep_src_state(const prep_state *st)
{
    return (prep_src){state_get, (void *)st};
}

void prep_poison_state(prep_state *st, prep_step which_step)
{
    prep_col cols[PREP_MAX_OUTS];
    for (int step = 0; step < PREP_NSTEPS; step++) {
        if (which_step != PREP_NSTEPS && step != (int)which_step)
            continue;
        int k = prep_step_outputs((prep_step)step, cols);
        for (int i = 0; i < k; i++) {
            void *p = prep_state_col(st, cols[i]);
            if (!p)
                continue;
            int64_t cnt = prep_out_count(cols[i].what, st->n, st->stride);
            check_poison(p, (size_t)cnt);
        }
    }
}

/* ---- expected values --------------------------------------------------------------------- */

/* The expected value of element i of output c, as a double. */
static double expected(const prep_ref *r, const prep_state *in, prep_col c, int64_t i)
{
    int64_t s = in->stride;
    switch (c.what) {
    case PO_MEDIAN: return (double)r->median[i];
    case PO_FILLED: {
        float x = in->raw.num[c.col * s + i];
        return isnan(x) ? (double)r->median[c.col] : (double)x;
    }
    case PO_COUNT: return (double)r->m;
    case PO_KEPT_NUM: return (double)in->filled[c.col * s + r->idx[i]];
    case PO_KEPT_TS: return (double)in->raw.ts[r->idx[i]];
    case PO_KEPT_PAY: return (double)in->raw.pay[r->idx[i]];
    case PO_KEPT_ZONE: return (double)in->raw.zone[r->idx[i]];
    case PO_KEPT_LABEL: return (double)in->raw.label[r->idx[i]];
    case PO_T: {
        double x = (double)in->kept.num[c.col * s + i];
        if (c.col >= PREP_SKEWED)
            return x;
        double y = log1p(x);
        return y < 0.0 ? 0.0 : y > (double)PREP_LOG_CLIP ? (double)PREP_LOG_CLIP : y;
    }
    case PO_STATS: return i < PREP_NUM ? r->mean[i] : r->sd[i - PREP_NUM];
    case PO_EDGES: return (double)r->edges[i];
    case PO_COUNTS: return (double)r->counts[i];
    case PO_GMEAN: return r->gmean[i];
    case PO_Y: {
        double acc = 0.0;
        for (int k = 0; k < PREP_FEATURES; k++)
            acc += (double)in->X[k * s + i] * (double)in->W[k + c.col * PREP_FEATURES];
        return acc;
    }
    case PO_X: break;
    default: return NAN;
    }
    int32_t ts = in->kept.ts[i];
    int j = c.col;
    if (j >= PREP_X_Z && j < PREP_X_Z + PREP_NUM) {
        double sd = r->sd[j - PREP_X_Z];
        return sd > 0.0 ? ((double)in->t[(j - PREP_X_Z) * s + i] - r->mean[j - PREP_X_Z]) / sd
                        : 0.0;
    }
    if (j >= PREP_X_PAY && j < PREP_X_PAY + PREP_PAY)
        return in->kept.pay[i] == j - PREP_X_PAY ? 1.0 : 0.0;
    switch (j) {
    case PREP_X_HOUR: return (double)(ts / 3600 % 24);
    case PREP_X_DOW: return (double)(ts / PREP_DAY % 7);
    case PREP_X_BIN: {
        float x = in->kept.num[i];
        int b = 0;
        for (int k = 0; k < PREP_EDGES; k++)
            b += r->edges[k] <= x;
        return (double)b;
    }
    case PREP_X_FREQ: return in->m ? (double)r->counts[in->kept.zone[i]] / (double)in->m : 0.0;
    case PREP_X_TARGET: return r->gmean[in->kept.zone[i]];
    default: return NAN;
    }
}

static bool exact_out(prep_col c)
{
    switch (c.what) {
    case PO_T: return c.col >= PREP_SKEWED;
    case PO_STATS:
    case PO_GMEAN:
    case PO_Y: return false;
    case PO_X:
        return c.col == PREP_X_HOUR || c.col == PREP_X_DOW || c.col == PREP_X_BIN ||
               (c.col >= PREP_X_PAY && c.col < PREP_X_PAY + PREP_PAY);
    default: return true;
    }
}

/* ---- comparing one column ---------------------------------------------------------------- */

/* Expected values of rows [i0, i0 + n) of column c.  The linear layer's
 * outputs are summed feature by feature over the whole chunk (the same
 * order of additions as expected(), in a loop a compiler vectorises): a
 * row at a time, each of its 19 features would be a strided load. */
static void expected_chunk(const prep_ref *r, const prep_state *in, prep_col c, int64_t i0,
                           int n, double *out)
{
    if (c.what != PO_Y) {
        for (int j = 0; j < n; j++)
            out[j] = expected(r, in, c, i0 + j);
        return;
    }
    int64_t s = in->stride;
    for (int j = 0; j < n; j++)
        out[j] = 0.0;
    for (int k = 0; k < PREP_FEATURES; k++) {
        const float *x = in->X + k * s + i0;
        double w = (double)in->W[k + c.col * PREP_FEATURES];
        for (int j = 0; j < n; j++)
            out[j] += (double)x[j] * w;
    }
}

#define CHUNK 2048
#define CAND_MAX 4096

/* An element over the tolerance of its own magnitude: wrong when it is
 * over the column's rms too, which is known only at the end. */
typedef struct cand {
    int64_t i;
    double got, want, diff;   /* diff: |got - want| */
} cand;

typedef struct cmp_part {
    double ref2, diff2;
    int64_t unwritten, nonfinite, differing;
    int nmis;
    check_mismatch mis[4];
    cand *cands;
    int ncands;
    bool overflow;            /* more candidates than CAND_MAX: judged again */
} cmp_part;

typedef struct cmp_job {
    const prep_ref *r;
    const prep_state *in;
    prep_col c;
    const void *got;
    int64_t count;
    bool is_int, exact, again;
    double rms;
    cmp_part part[MAX_PARTS];
} cmp_job;

static void note(cmp_part *p, int64_t i, double got, double want)
{
    if (p->nmis < 4)
        p->mis[p->nmis++] = (check_mismatch){i, got, want};
}

/* The element's value as a double; false (counted and noted) when it was
 * never written or is not finite. */
static bool value_at(const cmp_job *j, cmp_part *p, int64_t i, double want, double *g)
{
    if (j->is_int) {
        int32_t v = ((const int32_t *)j->got)[i];
        if ((uint32_t)v == (uint32_t)CHECK_POISON_BITS) {
            p->unwritten++;
            note(p, i, (double)v, want);
            return false;
        }
        *g = (double)v;
        return true;
    }
    float v = ((const float *)j->got)[i];
    if (check_is_poison(v)) {
        p->unwritten++;
        note(p, i, (double)v, want);
        return false;
    }
    if (!isfinite(v)) {
        p->nonfinite++;
        note(p, i, (double)v, want);
        return false;
    }
    *g = (double)v;
    return true;
}

/* One element of a tolerance column, in the first pass: sure, or a candidate. */
static void judge_first(cmp_part *p, int64_t i, double g, double e)
{
    double d = fabs(g - e);
    if (!(d > PREP_TOL * fabs(e)))
        return;
    if (p->overflow)
        return;
    if (!p->cands)
        p->cands = malloc(CAND_MAX * sizeof *p->cands);
    if (!p->cands || p->ncands == CAND_MAX) {
        p->overflow = true;
        return;
    }
    p->cands[p->ncands++] = (cand){.i = i, .got = g, .want = e, .diff = d};
}

/* One pass over a part of the column: counts, sums and, for exact columns,
 * the verdict; tolerance columns leave candidates.  With j->again, the rms
 * now known, a part whose candidates overflowed is judged element by
 * element (its notes after pass one's unwritten and non-finite ones). */
static void cmp_run(void *ctx, int part, int nparts)
{
    cmp_job *j = ctx;
    cmp_part *p = &j->part[part];
    int64_t a = j->count * part / nparts, b = j->count * (part + 1) / nparts;
    double want[CHUNK];
    if (j->again && !p->overflow)
        return;
    if (!j->again)
        memset(p, 0, sizeof *p);
    for (int64_t c0 = a; c0 < b; c0 += CHUNK) {
        int n = b - c0 < CHUNK ? (int)(b - c0) : CHUNK;
        expected_chunk(j->r, j->in, j->c, c0, n, want);
        for (int k = 0; k < n; k++) {
            int64_t i = c0 + k;
            double e = want[k], g;
            if (j->again) {
                if (j->is_int) {
                    int32_t v = ((const int32_t *)j->got)[i];
                    if ((uint32_t)v == (uint32_t)CHECK_POISON_BITS)
                        continue;
                    g = (double)v;
                } else {
                    float v = ((const float *)j->got)[i];
                    if (!isfinite(v) || check_is_poison(v))
                        continue;
                    g = (double)v;
                }
                double scale = fabs(e) > j->rms ? fabs(e) : j->rms;
                if (fabs(g - e) > PREP_TOL * scale) {
                    p->differing++;
                    note(p, i, g, e);
                }
                continue;
            }
            p->ref2 += e * e;
            if (!value_at(j, p, i, e, &g))
                continue;
            double d = g - e;
            p->diff2 += d * d;
            if (j->exact) {
                if (g != e) {
                    p->differing++;
                    note(p, i, g, e);
                }
            } else {
                judge_first(p, i, g, e);
            }
        }
    }
}

/* The candidates of a part judged against the column's rms. */
static void judge_cands(cmp_part *p, double rms)
{
    for (int k = 0; k < p->ncands; k++) {
        const cand *q = &p->cands[k];
        double scale = fabs(q->want) > rms ? fabs(q->want) : rms;
        if (q->diff > PREP_TOL * scale) {
            p->differing++;
            note(p, q->i, q->got, q->want);
        }
    }
}

/* Compares one column into rep (a check_report of that column): one pass
 * computes every expected value once; only a part with more candidates
 * than it can hold is read a second time. */
static void compare_col(const prep_ref *r, const prep_state *in, prep_col c, const void *got,
                        int64_t count, int threads, check_report *rep)
{
    cmp_job *j = calloc(1, sizeof *j);
    memset(rep, 0, sizeof *rep);
    if (!j) {
        rep->status = CHECK_WRONG;
        return;
    }
    *j = (cmp_job){.r = r, .in = in, .c = c, .got = got, .count = count,
                   .is_int = prep_out_is_int(c.what), .exact = exact_out(c)};
    int parts = parallel_threads(threads, (double)count, CHECK_MIN_ROWS);
    parts = parts > MAX_PARTS ? MAX_PARTS : parts;
    parallel_run(parts, cmp_run, j);
    double ref2 = 0.0;
    bool again = false;
    for (int p = 0; p < parts; p++) {
        ref2 += j->part[p].ref2;
        again |= j->part[p].overflow;
    }
    j->rms = count ? sqrt(ref2 / (double)count) : 0.0;
    if (again) {
        j->again = true;
        parallel_run(parts, cmp_run, j);
    }
    double diff2 = 0.0;
    for (int p = 0; p < parts; p++) {
        cmp_part *q = &j->part[p];
        if (!j->exact && !q->overflow)
            judge_cands(q, j->rms);
        free(q->cands);
        diff2 += q->diff2;
        rep->unwritten += q->unwritten;
        rep->nonfinite += q->nonfinite;
        rep->differing += q->differing;
        for (int k = 0; k < q->nmis && rep->nmismatch < 4; k++)
            rep->mismatch[rep->nmismatch++] = q->mis[k];
    }
    rep->compared = count;
    rep->rel_err = ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    if (rep->unwritten)
        rep->status = CHECK_UNWRITTEN;
    else if (rep->nonfinite)
        rep->status = CHECK_NONFINITE;
    else if (rep->differing || (!j->exact && rep->rel_err > PREP_TOL))
        rep->status = CHECK_WRONG;
    else
        rep->status = CHECK_OK;
    free(j);
}

/* ---- a step ------------------------------------------------------------------------------- */

static bool check_cols(const prep_ref *r, const prep_state *in, const prep_col *cols, int k,
                       const prep_src *src, void *buf, int threads, prep_report *out,
                       cl_err *e)
{
    memset(out, 0, sizeof *out);
    bool failed = false;
    for (int i = 0; i < k; i++) {
        int64_t count = prep_out_count(cols[i].what, in->n, r->m);
        const void *got = src->get(src->ud, cols[i], count, buf, e);
        if (!got)
            return false;
        check_report rep;
        compare_col(r, in, cols[i], got, count, threads, &rep);
        out->total += rep.compared;
        out->columns++;
        if (!failed && (rep.status != CHECK_OK || rep.rel_err >= out->c.rel_err)) {
            out->c = rep;
            prep_col_name(cols[i], out->column, sizeof out->column);
        }
        failed |= rep.status != CHECK_OK;
        /* a wrong count makes every kept column meaningless: stop there */
        if (cols[i].what == PO_COUNT && rep.status != CHECK_OK)
            break;
    }
    return true;
}

bool prep_check_step(const prep_ref *ref, const prep_state *in, prep_step step, const prep_src *src,
                     void *buf, int threads, prep_report *out, cl_err *err)
{
    prep_col cols[PREP_MAX_OUTS];
    int k = prep_step_outputs(step, cols);
    return check_cols(ref, in, cols, k, src, buf, threads, out, err);
}

bool prep_check_all(const prep_ref *ref, const prep_state *in, const prep_src *src, void *buf,
                    int threads, prep_report *out, cl_err *err)
{
    prep_col cols[PREP_MAX_OUTS * PREP_NSTEPS];
    int k = 0;
    for (int s = PREP_FILL; s <= PREP_GEMM; s++)
        k += prep_step_outputs((prep_step)s, cols + k);
    return check_cols(ref, in, cols, k, src, buf, threads, out, err);
}

void prep_report_describe(const prep_report *report, char *buf, size_t buf_size)
{
    if (report->c.status == CHECK_OK) {
        snprintf(buf, buf_size, "ok: %lld values in %d outputs checked, largest rel err %.3g%s%s%s",
                 (long long)report->total, report->columns, report->c.rel_err,
                 report->column[0] ? " (" : "", report->column, report->column[0] ? ")" : "");
        return;
    }
    char base[512];
    check_describe(&report->c, base, sizeof base);
    const char *colon = strchr(base, ':');
    if (colon && report->column[0])
        snprintf(buf, buf_size, "%.*s: %s:%s", (int)(colon - base), base, report->column,
                 colon + 1);
    else
        snprintf(buf, buf_size, "%s", base);
}
