#include "cpu/prep_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/prep_algo.h"

bool prep_ref_new(prep_ref *ref, int64_t rows, cl_err *err)
{
    memset(ref, 0, sizeof *ref);
    ref->n = rows;
    ref->idx = malloc((size_t)prep_stride(rows) * sizeof *ref->idx);
    ref->counts = malloc(PREP_ZONES * sizeof *ref->counts);
    ref->gmean = malloc(PREP_ZONES * sizeof *ref->gmean);
    if (!ref->idx || !ref->counts || !ref->gmean) {
        prep_ref_free(ref);
        return err_set(err, "out of host memory for the reference");
    }
    return true;
}

void prep_ref_free(prep_ref *ref)
{
    free(ref->idx);
    free(ref->counts);
    free(ref->gmean);
    memset(ref, 0, sizeof *ref);
}

static void ref_fill(prep_ref *r, const prep_state *in, int threads)
{
    for (int c = 0; c < PREP_NUM; c++) {
        const float *x = in->raw.num + c * in->stride;
        size_t cnt = 0;
        for (int64_t i = 0; i < in->n; i++)
            cnt += !isnan(x[i]);
        if (cnt == 0) {
            r->median[c] = 0.0f;
            continue;
        }
        size_t rank = (cnt - 1) / 2;
        uint32_t k = 0;
        prep_hist_select(x, (size_t)in->n, &rank, 1, &k, threads);
        r->median[c] = prep_unkey(k);
    }
}

static void ref_filter(prep_ref *r, const prep_state *in)
{
    int64_t s = in->stride, m = 0;
    for (int64_t i = 0; i < in->n; i++) {
        float fare = in->filled[i], dist = in->filled[s + i], dur = in->filled[2 * s + i];
        int32_t ts = in->raw.ts[i];
        bool keep = fare > 0.0f && dist > 0.0f && dist <= 100.0f && dur > 0.0f &&
                    dur <= 300.0f && (int64_t)ts < (int64_t)PREP_CUTOFF_DAY * PREP_DAY;
        if (keep)
            r->idx[m++] = (int32_t)i;
    }
    r->m = m;
}

static void ref_standardize(prep_ref *r, const prep_state *in)
{
    int64_t m = in->m;
    for (int c = 0; c < PREP_NUM; c++) {
        const float *t = in->t + c * in->stride;
        double sum = 0.0, dev = 0.0;
        for (int64_t i = 0; i < m; i++)
            sum += (double)t[i];
        double mean = m ? sum / (double)m : 0.0;
        for (int64_t i = 0; i < m; i++) {
            double d = (double)t[i] - mean;
            dev += d * d;
        }
        r->mean[c] = mean;
        r->sd[c] = m ? sqrt(dev / (double)m) : 0.0;
    }
}

static void ref_binning(prep_ref *r, const prep_state *in, int threads)
{
    int64_t m = in->m;
    if (m == 0) {
        memset(r->edges, 0, sizeof r->edges);
        return;
    }
    size_t rank[PREP_EDGES];
    uint32_t keys[PREP_EDGES];
    for (int k = 0; k < PREP_EDGES; k++)
        rank[k] = (size_t)((k + 1) * m / PREP_BINS);
    prep_hist_select(in->kept.num, (size_t)m, rank, PREP_EDGES, keys, threads);
    for (int k = 0; k < PREP_EDGES; k++)
        r->edges[k] = prep_unkey(keys[k]);
}

static void ref_encode(prep_ref *r, const prep_state *in)
{
    memset(r->counts, 0, PREP_ZONES * sizeof *r->counts);
    for (int64_t i = 0; i < in->m; i++)
        r->counts[in->kept.zone[i]]++;
}

static void ref_groupby(prep_ref *r, const prep_state *in)
{
    double *sum = calloc(PREP_ZONES, sizeof *sum);
    int64_t *cnt = calloc(PREP_ZONES, sizeof *cnt);
    if (sum && cnt) {
        for (int64_t i = 0; i < in->m; i++) {
            sum[in->kept.zone[i]] += (double)in->kept.label[i];
            cnt[in->kept.zone[i]]++;
        }
        for (int z = 0; z < PREP_ZONES; z++)
            r->gmean[z] = cnt[z] ? sum[z] / (double)cnt[z] : 0.0;
    }
    free(sum);
    free(cnt);
}

void prep_ref_step(prep_ref *ref, const prep_state *in, prep_step step, int threads)
{
    switch (step) {
    case PREP_FILL: ref_fill(ref, in, threads); break;
    case PREP_FILTER: ref_filter(ref, in); break;
    case PREP_STANDARDIZE: ref_standardize(ref, in); break;
    case PREP_BINNING: ref_binning(ref, in, threads); break;
    case PREP_ENCODE: ref_encode(ref, in); break;
    case PREP_GROUPBY: ref_groupby(ref, in); break;
    default: break;
    }
}

void prep_ref_all(prep_ref *ref, const prep_state *in, int threads)
{
    for (int s = 0; s < PREP_NSTEPS; s++)
        prep_ref_step(ref, in, (prep_step)s, threads);
}
