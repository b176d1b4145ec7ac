#include "cpu/check.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void check_poison(float *data, size_t count)
{
    uint32_t bits = CHECK_POISON_BITS;
    float v;
    memcpy(&v, &bits, sizeof v);
    for (size_t i = 0; i < count; i++)
        data[i] = v;
}

bool check_is_poison(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits == (uint32_t)CHECK_POISON_BITS;
}

const char *check_status_name(check_status status)
{
    switch (status) {
    case CHECK_OK:
        return "ok";
    case CHECK_WRONG:
        return "wrong";
    case CHECK_UNWRITTEN:
        return "unwritten";
    case CHECK_NONFINITE:
        return "nonfinite";
    case CHECK_ERROR:
        return "error";
    default:
        return "unknown";
    }
}

static void check_note(check_report *r, int64_t index, double got, double expected)
{
    if (r->nmismatch < 4)
        r->mismatch[r->nmismatch++] = (check_mismatch){index, got, expected};
}

check_report check_compare(const float *got, size_t count, const double *ref, const int64_t *idx,
                           size_t nref, double tol)
{
    check_report r;
    memset(&r, 0, sizeof r);
    if (!idx && nref > count)
        nref = count;

    for (size_t i = 0; i < count; i++) {
        if (check_is_poison(got[i])) {
            r.unwritten++;
            check_note(&r, (int64_t)i, (double)got[i], (!idx && i < nref) ? ref[i] : (double)NAN);
        }
    }
    if (r.unwritten == 0) {
        for (size_t i = 0; i < count; i++) {
            if (!isfinite(got[i])) {
                r.nonfinite++;
                check_note(&r, (int64_t)i, (double)got[i], (!idx && i < nref) ? ref[i] : (double)NAN);
            }
        }
    } else {
        for (size_t i = 0; i < count; i++)
            if (!isfinite(got[i]) && !check_is_poison(got[i]))
                r.nonfinite++;
    }

    double ref2 = 0.0;
    for (size_t k = 0; k < nref; k++)
        ref2 += ref[k] * ref[k];
    double rms = nref ? sqrt(ref2 / (double)nref) : 0.0;

    bool record = r.unwritten == 0 && r.nonfinite == 0;
    double diff2 = 0.0;
    for (size_t k = 0; k < nref; k++) {
        int64_t i = idx ? idx[k] : (int64_t)k;
        if (i < 0 || (size_t)i >= count) {
            r.compared++;
            r.differing++;
            if (record)
                check_note(&r, i, (double)NAN, ref[k]);
            continue;
        }
        double g = (double)got[i];
        if (!isfinite(g))
            continue;
        double d = g - ref[k];
        diff2 += d * d;
        r.compared++;
        double scale = fabs(ref[k]) > rms ? fabs(ref[k]) : rms;
        if (fabs(d) > tol * scale) {
            r.differing++;
            if (record)
                check_note(&r, i, g, ref[k]);
        }
    }
    double refn = sqrt(ref2), diffn = sqrt(diff2);
    r.rel_err = refn > 0.0 ? diffn / refn : diffn;

    if (r.unwritten > 0)
        r.status = CHECK_UNWRITTEN;
    else if (r.nonfinite > 0)
        r.status = CHECK_NONFINITE;
    else if (r.differing > 0 || r.rel_err > tol)
        r.status = CHECK_WRONG;
    else
        r.status = CHECK_OK;
    return r;
}

/* The summary without the output's name. */
static void describe(const check_report *r, char *buf, size_t len);

void check_describe(const check_report *report, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (!report->output[0]) {
        describe(report, buf, len);
        return;
    }
    int w = snprintf(buf, len, "output '%s': ", report->output);
    if (w > 0 && (size_t)w < len)
        describe(report, buf + w, len - (size_t)w);
}

static void describe(const check_report *r, char *buf, size_t len)
{
    if (r->status == CHECK_ERROR) {
        snprintf(buf, len, "%s", r->note);
        return;
    }
    if (r->status == CHECK_WRONG && r->note[0]) {
        snprintf(buf, len, "wrong: %s", r->note);
        return;
    }
    const check_mismatch *m = r->nmismatch > 0 ? &r->mismatch[0] : NULL;
    switch (r->status) {
    case CHECK_OK:
        snprintf(buf, len, "ok: %lld checked, rel err %.3g", (long long)r->compared, r->rel_err);
        break;
    case CHECK_WRONG:
        if (m)
            snprintf(buf, len, "wrong: %lld of %lld checked differ; first at [%lld]: got %.9g, expected %.9g (rel err %.3g)",
                     (long long)r->differing, (long long)r->compared, (long long)m->index, m->got,
                     m->expected, r->rel_err);
        else
            snprintf(buf, len, "wrong: rel err %.3g over %lld checked exceeds the tolerance",
                     r->rel_err, (long long)r->compared);
        break;
    case CHECK_UNWRITTEN:
        snprintf(buf, len, "unwritten: %lld output element%s never written; first at [%lld]",
                 (long long)r->unwritten, r->unwritten == 1 ? " was" : "s were",
                 m ? (long long)m->index : -1LL);
        break;
    case CHECK_NONFINITE:
        snprintf(buf, len, "nonfinite: %lld output element%s NaN or Inf; first at [%lld]: got %g",
                 (long long)r->nonfinite, r->nonfinite == 1 ? " is" : "s are",
                 m ? (long long)m->index : -1LL, m ? m->got : 0.0);
        break;
    default:
        snprintf(buf, len, "unknown check status %d", (int)r->status);
        break;
    }
}
