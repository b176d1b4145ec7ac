/* check.h - comparing a GPU output with a double-precision reference. */
#ifndef CUDALAB_CPU_CHECK_H
#define CUDALAB_CPU_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A quiet NaN with a payload: outputs are filled with it before each run,
 * so an element the kernel never wrote is recognised. */
#define CHECK_POISON_BITS 0x7fc0dead

/* Fills data[0..count) with the poison pattern. */
void check_poison(float *data, size_t count);
/* True when value carries exactly the poison bits. */
bool check_is_poison(float value);

typedef enum {
    CHECK_OK, CHECK_WRONG, CHECK_UNWRITTEN, CHECK_NONFINITE,
    CHECK_ERROR,             /* the judging itself failed (a lab's judge function): note says why */
} check_status;

typedef struct check_mismatch {
    int64_t index;           /* index into got */
    double got, expected;
} check_mismatch;

typedef struct check_report {
    check_status status;
    double rel_err;          /* ||got - ref||_2 / ||ref||_2 over the compared elements */
    int64_t compared;        /* elements compared against the reference */
    int64_t unwritten;       /* poison values found (scan of the whole output) */
    int64_t nonfinite;       /* NaN/Inf that are not poison */
    int nmismatch;           /* first mismatches, up to 4 */
    check_mismatch mismatch[4];
    int64_t differing;       /* compared elements over the per-element tolerance */
    char output[32];         /* which output, for a problem of several ("" otherwise) */
    char note[256];          /* a judge's own words on a wrong output, or why judging failed */
} check_report;

/* Compares got[idx[k]] with ref[k] for k < nref (idx NULL: got[k] vs ref[k],
 * nref == count).  The whole got[0..count) is scanned for poison and
 * non-finite values first (unwritten wins, then nonfinite; then mismatch[]
 * lists the first offending elements, and rel_err still covers the finite
 * ones).  An element mismatches when |got-ref| > tol * max(|ref|, rms(ref));
 * status is WRONG when rel_err > tol or any element mismatches.  An index
 * outside [0,count) counts as a mismatch.  When ||ref|| is 0, rel_err is the
 * absolute norm ||got - ref||. */
check_report check_compare(const float *got, size_t count, const double *ref, const int64_t *idx,
                           size_t nref, double tol);
/* One-line human summary, e.g.
 * "wrong: 3 of 1024 checked differ; first at [17]: got 1.5, expected 2". */
void check_describe(const check_report *report, char *buf, size_t len);
/* "ok", "wrong", "unwritten" or "nonfinite". */
const char *check_status_name(check_status status);

#endif
