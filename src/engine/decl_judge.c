/* decl_judge.c - judging a declared problem's outputs against the
 * reference (engine/problem_decl.h).
 *
 * Each output is scanned for poison (elements the run never wrote) and
 * for NaN or infinity first, then compared by its declared rule: exact,
 * relative (the shipped problems' rule: the relative norm of the error,
 * and no element off by more than the tolerance of the larger of its
 * reference and the reference's root mean square), absolute, both (every
 * element within abs + rel |ref|), or the lab's Lua function.  The first
 * output that fails gives the report, named.  Large outputs are scanned
 * in parts over the CPU's threads; the first mismatches are still the
 * first by index. */
#include "engine/problem_decl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cpu/parallel.h"
#include "lab/probcall.h"
#include "lab/probview.h"

static void note(check_report *r, int64_t index, double got, double expected)
{
    if (r->nmismatch < 4)
        r->mismatch[r->nmismatch++] = (check_mismatch){index, got, expected};
}

/* ---- the scans, over threads ------------------------------------------------ */

#define JUDGE_MAX_PARTS 64
#define JUDGE_MIN_PER_PART ((double)(1 << 18))

/* What one part of an output found, merged in index order afterwards. */
typedef struct judge_part {
    int64_t unwritten, nonfinite, differing, compared;
    double ref2, diff2;
    check_mismatch special[4], off[4];   /* unwritten first, then non-finite; differing */
    int nspecial, nunwritten_noted, noff;
} judge_part;

typedef struct judge_scan {
    const decl_buf *b;
    decl_type t;
    const decl_judge *j;
    double rms;
    bool second;                         /* the comparison, once rms is known */
    judge_part part[JUDGE_MAX_PARTS];
} judge_scan;

static void keep(check_mismatch *v, int *n, int64_t i, double got, double want)
{
    if (*n < 4)
        v[(*n)++] = (check_mismatch){i, got, want};
}

/* Pass one: poison (not for u8, whose poison is a value like any other),
 * then NaN and infinity, and the reference's sum of squares.  Pass two:
 * each finite element against the rule. */
static void scan_part(void *ctx, int part, int nparts)
{
    judge_scan *js = ctx;
    judge_part *q = &js->part[part];
    const decl_buf *b = js->b;
    size_t from = b->count * (size_t)part / (size_t)nparts;
    size_t to = b->count * (size_t)(part + 1) / (size_t)nparts;
    if (!js->second) {
        memset(q, 0, sizeof *q);
        check_mismatch nonfin[4];
        int nn = 0;
        for (size_t i = from; i < to; i++) {
            q->ref2 += b->ref[i] * b->ref[i];
            if (js->t != DT_U8 && decl_is_poison(b->host, js->t, i)) {
                q->unwritten++;
                keep(q->special, &q->nunwritten_noted, (int64_t)i, NAN, b->ref[i]);
                continue;
            }
            double g = probview_get(b->host, js->t, i);
            if (!isfinite(g)) {
                q->nonfinite++;
                keep(nonfin, &nn, (int64_t)i, g, b->ref[i]);
            }
        }
        q->nspecial = q->nunwritten_noted;
        for (int k = 0; k < nn && q->nspecial < 4; k++)
            q->special[q->nspecial++] = nonfin[k];
        return;
    }
    for (size_t i = from; i < to; i++) {
        double g = probview_get(b->host, js->t, i);
        if (!isfinite(g) || (js->t != DT_U8 && decl_is_poison(b->host, js->t, i)))
            continue;
        double d = g - b->ref[i];
        q->diff2 += d * d;
        q->compared++;
        if (decl_judge_off(js->j, d, b->ref[i], js->rms)) {
            q->differing++;
            keep(q->off, &q->noff, (int64_t)i, g, b->ref[i]);
        }
    }
}

static int scan_parts(const decl_buf *b)
{
    int n = parallel_threads(0, (double)b->count, JUDGE_MIN_PER_PART);
    return n > JUDGE_MAX_PARTS ? JUDGE_MAX_PARTS : n < 1 ? 1 : n;
}

/* Pass one over one output into r: unwritten and non-finite elements,
 * their first four (unwritten ones first); the reference's RMS into js. */
static void scan_special(judge_scan *js, int parts, check_report *r)
{
    js->second = false;
    parallel_run(parts, scan_part, js);
    double ref2 = 0.0;
    for (int p = 0; p < parts; p++) {
        r->unwritten += js->part[p].unwritten;
        r->nonfinite += js->part[p].nonfinite;
        ref2 += js->part[p].ref2;
    }
    /* the first four unwritten elements, then (when none is) non-finite ones */
    for (int p = 0; p < parts; p++)
        for (int k = 0; k < js->part[p].nunwritten_noted; k++)
            note(r, js->part[p].special[k].index, js->part[p].special[k].got,
                 js->part[p].special[k].expected);
    for (int p = 0; r->unwritten == 0 && p < parts; p++)
        for (int k = js->part[p].nunwritten_noted; k < js->part[p].nspecial; k++)
            note(r, js->part[p].special[k].index, js->part[p].special[k].got,
                 js->part[p].special[k].expected);
    js->rms = js->b->count ? sqrt(ref2 / (double)js->b->count) : 0.0;
    js->part[0].ref2 = ref2;
}

/* The rule-based comparison of one output (pass two). */
static void compare(judge_scan *js, int parts, check_report *r)
{
    double ref2 = js->part[0].ref2, diff2 = 0.0;
    js->second = true;
    parallel_run(parts, scan_part, js);
    bool record = r->unwritten == 0 && r->nonfinite == 0;
    for (int p = 0; p < parts; p++) {
        const judge_part *q = &js->part[p];
        diff2 += q->diff2;
        r->compared += q->compared;
        r->differing += q->differing;
        for (int k = 0; record && k < q->noff; k++)
            note(r, q->off[k].index, q->off[k].got, q->off[k].expected);
    }
    const decl_judge *j = js->j;
    double refn = sqrt(ref2), diffn = sqrt(diff2);
    r->rel_err = refn > 0.0 ? diffn / refn : diffn;
    if (r->unwritten > 0)
        r->status = CHECK_UNWRITTEN;
    else if (r->nonfinite > 0)
        r->status = CHECK_NONFINITE;
    else if (r->differing > 0 || (j->kind == JUDGE_REL && r->rel_err > j->rel))
        r->status = CHECK_WRONG;
    else
        r->status = CHECK_OK;
}

/* The lab's judge function on one output (lab/probcall.h). */
static void judge_lua(const problem_decl *d, int i, const decl_buf *b, const problem_dims *dims,
                      check_report *r)
{
    char note[sizeof r->note];
    r->compared = (int64_t)b->count;
    switch (probcall_judge(d, i, dims, b->host, b->ref, b->count, note, sizeof note)) {
    case PROBCALL_OK:
        r->status = CHECK_OK;
        break;
    case PROBCALL_WRONG:
        r->status = CHECK_WRONG;
        snprintf(r->note, sizeof r->note, "%s", note[0] ? note : "the lab's judge says so");
        break;
    case PROBCALL_FAILED:
        r->status = CHECK_ERROR;
        snprintf(r->note, sizeof r->note, "the lab's judge failed: %s", note);
        break;
    }
}

check_report decl_check_outputs(const problem_data *data)
{
    const decl_problem *dp = problem_decl_ops_of(data);
    const problem_decl *d = dp->d;
    check_report all;
    memset(&all, 0, sizeof all);
    int outputs = 0;
    for (int i = 0; i < d->nargs; i++)
        outputs += d->args[i].output;
    for (int i = 0; i < d->nargs; i++) {
        const decl_arg *a = &d->args[i];
        if (!a->output)
            continue;
        const decl_buf *b = &data->decl->b[i];
        check_report r;
        memset(&r, 0, sizeof r);
        static judge_scan js;   /* the worker checks one output at a time */
        js.b = b;
        js.t = a->type;
        js.j = &a->judge;
        int parts = scan_parts(b);
        scan_special(&js, parts, &r);
        if (a->judge.kind == JUDGE_FN && r.unwritten == 0 && r.nonfinite == 0)
            judge_lua(d, i, b, &data->d, &r);
        else if (a->judge.kind == JUDGE_FN)
            r.status = r.unwritten ? CHECK_UNWRITTEN : CHECK_NONFINITE;
        else
            compare(&js, parts, &r);
        if (outputs > 1)
            snprintf(r.output, sizeof r.output, "%s", a->name);
        if (r.status != CHECK_OK && all.status == CHECK_OK) {
            int64_t compared = all.compared;
            double rel = all.rel_err;
            all = r;
            all.compared += compared;
            all.rel_err = rel > r.rel_err ? rel : r.rel_err;
            continue;
        }
        all.compared += r.compared;
        if (r.rel_err > all.rel_err)
            all.rel_err = r.rel_err;
    }
    return all;
}
