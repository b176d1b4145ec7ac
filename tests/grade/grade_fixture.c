/* grade_fixture.c - reports built by hand for the grade tests
 * (grade_fixture.h). */
#include "grade_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>

#include "grade/report.h"
#include "support.h"

const char gf_key[] = "correct horse battery staple";

void gf_milestone(grade_milestone *g, const char *id, const char *text, bool quiz, double pts,
                  bool passed, const char *value, const char *why)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "%s", id);
    snprintf(g->text, sizeof g->text, "%s", text);
    g->quiz = quiz;
    g->points = pts;
    g->passed = passed;
    g->earned = passed ? pts : 0;
    snprintf(g->value, sizeof g->value, "%s", value);
    snprintf(g->why, sizeof g->why, "%s", why);
    if (!passed)
        snprintf(g->cause, sizeof g->cause, "wrong");
    if (!quiz)
        snprintf(g->size, sizeof g->size, "2^28");
}

static void first_lab(grade_lab *a, double best_ms, const char *kernel_sha)
{
    snprintf(a->id, sizeof a->id, "reduction");
    snprintf(a->title, sizeof a->title, "Parallel reduction");
    a->measured = true;
    a->kernel_text = strdup("extern \"C\" __global__ void k() {}\n");
    snprintf(a->kernel_path, sizeof a->kernel_path, "/ws/reduction/starter.cu");
    snprintf(a->kernel_sha, sizeof a->kernel_sha, "%s", kernel_sha);
    snprintf(a->launcher_sha, sizeof a->launcher_sha, "%064d", 9);
    a->nms = 2;
    a->ms = calloc(2, sizeof *a->ms);
    assert_non_null(a->ms);
    gf_milestone(&a->ms[0], "cpu100x", "Over 100x faster than the CPU", false, 3, true,
                 "223x >= 100x", "");
    gf_milestone(&a->ms[1], "warps", "Can explain warps", true, 1, true, "answered right", "");
    a->score = 4;
    a->max_score = 4;
    a->best_ms = best_ms;
    snprintf(a->best_size, sizeof a->best_size, "2^28");
    a->nrows = 1;
    a->rows = calloc(1, sizeof *a->rows);
    assert_non_null(a->rows);
    run_result_init(&a->rows[0]);
    snprintf(a->rows[0].variant, sizeof a->rows[0].variant, "exercise");
    a->rows[0].kind = RK_EXERCISE;
    a->rows[0].status = RS_CORRECT;
    a->rows[0].median_ms = best_ms;
    a->rows[0].samples = 9;
}

void gf_report(grade_report *r, const char *learner, double best_ms, const char *kernel_sha)
{
    memset(r, 0, sizeof *r);
    snprintf(r->learner, sizeof r->learner, "%s", learner);
    snprintf(r->assignment, sizeof r->assignment, "%s", GF_ASSIGNMENT);
    snprintf(r->hostname, sizeof r->hostname, "%s", GF_HOST);
    snprintf(r->workspace, sizeof r->workspace, "/home/%s/cudalab-workspace", learner);
    snprintf(r->version, sizeof r->version, "0.1.0");
    snprintf(r->created, sizeof r->created, "2026-11-24T10:00:00Z");
    r->dev.present = true;
    snprintf(r->dev.name, sizeof r->dev.name, "NVIDIA H100 80GB HBM3");
    r->seed = 12345678901234567ull;
    r->seconds = 21.5;
    r->nlabs = 2;
    r->labs = calloc(2, sizeof *r->labs);
    assert_non_null(r->labs);
    first_lab(&r->labs[0], best_ms, kernel_sha);
    grade_lab *b = &r->labs[1];
    snprintf(b->id, sizeof b->id, "matmul");
    snprintf(b->title, sizeof b->title, "Matrix multiplication");
    b->nms = 1;
    b->ms = calloc(1, sizeof *b->ms);
    assert_non_null(b->ms);
    gf_milestone(&b->ms[0], "within2x", "Within 2x of cuBLAS", false, 2, false, "0.31x >= 0.5x",
                 "Your output differs from the reference: C[17] is 3 < 4 & \"wrong\", at 1,2\x01 "
                 "\xff\xfe (bad bytes)");
    b->score = 0;
    b->max_score = 2;
    r->score = 4;
    r->max_score = 6;
}

void gf_write_all(const grade_report *r, const char *out, bool signed_)
{
    report_kind kinds[] = {REPORT_JSON, REPORT_GRADESCOPE, REPORT_JUNIT, REPORT_CSV};
    cl_err e = {{0}};
    if (!report_write(r, out, kinds, 4, signed_ ? gf_key : NULL, signed_ ? strlen(gf_key) : 0,
                      &e))
        fail_msg("report_write: %s", e.msg);
}

char *gf_read(const char *dir, const char *file)
{
    char path[CL_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = ts_read(path);
    if (!text)
        fail_msg("cannot read %s", path);
    return text;
}

cJSON *gf_read_json(const char *dir, const char *file)
{
    char *text = gf_read(dir, file);
    cJSON *o = cJSON_Parse(text);
    free(text);
    assert_non_null(o);
    return o;
}

void gf_keys_of(const cJSON *o, char *out, size_t n)
{
    const char *names[64];
    size_t k = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, o) if (k < 64) names[k++] = it->string;
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++)
            if (strcmp(names[j], names[i]) < 0) {
                const char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < k && at < n; i++)
        at += (size_t)snprintf(out + at, n - at, "%s%s", i ? " " : "", names[i]);
}

static void put(const char *dir, const char *file, const char *text)
{
    char path[CL_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    assert_true(ts_write(path, text));
}

void gf_tamper(const char *dir, const char *file, const char *from, const char *to)
{
    char *text = gf_read(dir, file);
    char *p = strstr(text, from);
    if (!p)
        fail_msg("%s/%s has no '%s' to change", dir, file, from);
    size_t n = strlen(text) + strlen(to) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%.*s%s%s", (int)(p - text), text, to, p + strlen(from));
    put(dir, file, out);
    free(out);
    free(text);
}

void gf_wrap(const char *dir, const char *file, const char *before, const char *after)
{
    char *text = gf_read(dir, file);
    size_t n = strlen(before) + strlen(text) + strlen(after) + 1;
    char *out = malloc(n);
    assert_non_null(out);
    snprintf(out, n, "%s%s%s", before, text, after);
    put(dir, file, out);
    free(out);
    free(text);
}

sign_verdict gf_verdict(const char *dir, const char *file, const char *k)
{
    char path[CL_PATH_MAX + 64], why[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    sign_verdict v = sign_verify_file(path, k, strlen(k), why, sizeof why);
    printf("  verify %s: %s (%s)\n", file, sign_verdict_name(v), why);
    return v;
}
