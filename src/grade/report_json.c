/* report_json.c - cudalab's own grade report: every measurement, the
 * device, the seed, the version, and the graded sources with their hashes;
 * and reading one back for the class view. */
#include "grade/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsondoc.h"
#include "core/jsonf.h"
#include "result/record_json.h"

static cJSON *put_source(cJSON *o, const char *k, const char *path, const char *sha,
                         const char *text)
{
    cJSON *s = cJSON_AddObjectToObject(o, k);
    if (!s)
        return NULL;
    jsonf_put_str(s, "path", path);
    if (text) {
        jsonf_put_str(s, "sha256", sha);
        jsonf_put_str(s, "text", text);
    } else {
        cJSON_AddNullToObject(s, "sha256");
        cJSON_AddNullToObject(s, "text");
    }
    return s;
}

static cJSON *milestone_json(const grade_milestone *g)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    jsonf_put_str(o, "id", g->id);
    jsonf_put_str(o, "text", g->text);
    jsonf_put_str(o, "kind", g->quiz ? "quiz" : "measured");
    jsonf_put_double(o, "points", g->points);
    jsonf_put_double(o, "earned", g->earned);
    jsonf_put_bool(o, "passed", g->passed);
    /* a quiz's points are the learner's own answers: self-reported */
    jsonf_put_bool(o, "self_reported", g->quiz);
    jsonf_put_bool(o, "counted", !g->not_counted);
    jsonf_put_str(o, "value", g->value);
    if (g->quiz) {
        jsonf_put_int(o, "attempts", g->attempts);
        if (g->answered_at > 0)
            jsonf_put_double(o, "answered_at", g->answered_at);
    } else {
        jsonf_put_str(o, "size", g->size);
    }
    jsonf_put_str(o, "cause", g->cause);
    jsonf_put_str(o, "why", g->why);
    return o;
}

static cJSON *lab_json(const grade_lab *gl)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    jsonf_put_str(o, "id", gl->id);
    jsonf_put_str(o, "title", gl->title);
    jsonf_put_double(o, "score", gl->score);
    jsonf_put_double(o, "max_score", gl->max_score);
    jsonf_put_double(o, "seconds", gl->seconds);
    jsonf_put_bool(o, "measured", gl->measured);
    jsonf_put_str(o, "note", gl->note);
    jsonf_put_str(o, "cause", gl->cause);
    cJSON *src = cJSON_AddObjectToObject(o, "sources");
    if (src) {
        cJSON *k = put_source(src, "kernel", gl->kernel_path, gl->kernel_sha, gl->kernel_text);
        if (k)
            jsonf_put_bool(k, "unchanged_starter", gl->kernel_starter);
        put_source(src, "launcher", gl->launcher_path, gl->launcher_sha, gl->launcher_text);
    }
    if (gl->best_ms > 0) {
        cJSON *b = cJSON_AddObjectToObject(o, "best");
        if (b) {
            jsonf_put_str(b, "size", gl->best_size);
            jsonf_put_double(b, "median_ms", gl->best_ms);
        }
    } else {
        cJSON_AddNullToObject(o, "best");
    }
    cJSON *ms = cJSON_AddArrayToObject(o, "milestones");
    for (size_t i = 0; ms && i < gl->nms; i++)
        cJSON_AddItemToArray(ms, milestone_json(&gl->ms[i]));
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    for (size_t i = 0; rows && i < gl->nrows; i++) {
        cJSON *r = cJSON_CreateObject();
        if (r && record_put_result(r, &gl->rows[i]))
            cJSON_AddItemToArray(rows, r);
        else
            cJSON_Delete(r);
    }
    return o;
}

cJSON *report_json(const grade_report *report)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    jsonf_put_str(o, "format", REPORT_FORMAT);
    jsonf_put_int(o, "format_version", REPORT_FORMAT_VERSION);
    jsonf_put_str(o, "cudalab", report->version);
    jsonf_put_str(o, "learner", report->learner);
    jsonf_put_str(o, "assignment", report->assignment);
    jsonf_put_str(o, "hostname", report->hostname);
    jsonf_put_str(o, "workspace", report->workspace);
    jsonf_put_str(o, "created", report->created);
    if (report->error[0])
        jsonf_put_str(o, "error", report->error);
    else
        cJSON_AddNullToObject(o, "error");
    jsonf_put_u64(o, "seed", report->seed);
    jsonf_put_double(o, "seconds", report->seconds);
    jsonf_put_double(o, "score", report->score);
    jsonf_put_double(o, "max_score", report->max_score);
    jsonf_put_str(o, "quizzes", grade_quizzes_name(report->quizzes));
    /* the sandbox the learner's code ran in (grade_sandbox_name) */
    jsonf_put_str(o, "sandbox", report->sandbox);
    cJSON *d = cJSON_AddObjectToObject(o, "device");
    if (d)
        record_put_device(d, &report->dev);
    cJSON *labs = cJSON_AddArrayToObject(o, "labs");
    for (size_t i = 0; labs && i < report->nlabs; i++)
        cJSON_AddItemToArray(labs, lab_json(&report->labs[i]));
    /* Every string valid UTF-8, no control character but tab and line
     * breaks (which JSON escapes): the learner's text included. */
    if (!jsondoc_clean_strings(o, ESCAPE_WS_KEEP)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* ---- reading back --------------------------------------------------------------- */

static bool read_milestone(const cJSON *o, grade_milestone *g, cl_err *e)
{
    char kind[16] = "";
    if (!cJSON_IsObject(o))
        return err_set(e, "a milestone is not an object");
    if (!(jsonf_get_str(o, "id", g->id, sizeof g->id, e) &&
          jsonf_get_str(o, "text", g->text, sizeof g->text, e) &&
          jsonf_get_str(o, "kind", kind, sizeof kind, e) &&
          jsonf_get_double(o, "points", &g->points, 0, e) &&
          jsonf_get_double(o, "earned", &g->earned, 0, e) &&
          jsonf_get_bool(o, "passed", &g->passed, e) &&
          jsonf_get_str(o, "value", g->value, sizeof g->value, e) &&
          jsonf_get_str(o, "size", g->size, sizeof g->size, e) &&
          jsonf_get_str(o, "cause", g->cause, sizeof g->cause, e) &&
          jsonf_get_str(o, "why", g->why, sizeof g->why, e) &&
          jsonf_get_int(o, "attempts", &g->attempts, e)))
        return false;
    g->quiz = strcmp(kind, "quiz") == 0;
    bool counted = true;   /* reports from before --quizzes counted every milestone */
    if (!jsonf_get_bool(o, "counted", &counted, e))
        return false;
    g->not_counted = !counted;
    if (!g->id[0])
        return err_set(e, "a milestone has no id");
    return true;
}

/* The graded sources' hashes (their text is not read back). */
static bool read_sources(const cJSON *src, grade_lab *gl, cl_err *e)
{
    if (!src)
        return true;
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(src, "kernel");
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(src, "launcher");
    if (!cJSON_IsObject(src) || (k && !cJSON_IsObject(k)) || (l && !cJSON_IsObject(l)))
        return err_set(e, "field 'sources' must hold a kernel and a launcher object");
    return jsonf_get_str(k, "path", gl->kernel_path, sizeof gl->kernel_path, e) &&
           jsonf_get_str(k, "sha256", gl->kernel_sha, sizeof gl->kernel_sha, e) &&
           jsonf_get_bool(k, "unchanged_starter", &gl->kernel_starter, e) &&
           jsonf_get_str(l, "path", gl->launcher_path, sizeof gl->launcher_path, e) &&
           jsonf_get_str(l, "sha256", gl->launcher_sha, sizeof gl->launcher_sha, e);
}

static bool read_lab(const cJSON *o, grade_lab *gl, cl_err *e)
{
    bool ok = true;
    if (!cJSON_IsObject(o))
        return err_set(e, "a lab is not an object");
    if (!(jsonf_get_str(o, "id", gl->id, sizeof gl->id, e) &&
          jsonf_get_str(o, "title", gl->title, sizeof gl->title, e) &&
          jsonf_get_double(o, "score", &gl->score, 0, e) &&
          jsonf_get_double(o, "max_score", &gl->max_score, 0, e) &&
          jsonf_get_bool(o, "measured", &gl->measured, e) &&
          jsonf_get_str(o, "note", gl->note, sizeof gl->note, e)))
        return false;
    if (!read_sources(cJSON_GetObjectItemCaseSensitive(o, "sources"), gl, e))
        return err_prefix(e, "lab '%s'", gl->id);
    const cJSON *best = cJSON_GetObjectItemCaseSensitive(o, "best");
    if (cJSON_IsObject(best) &&
        !(jsonf_get_str(best, "size", gl->best_size, sizeof gl->best_size, e) &&
          jsonf_get_double(best, "median_ms", &gl->best_ms, 0, e)))
        return false;
    const cJSON *ms = jsonf_get_array(o, "milestones", 4096, e, &ok);
    if (!ok)
        return false;
    int n = cJSON_GetArraySize(ms);
    gl->ms = calloc(n > 0 ? (size_t)n : 1, sizeof *gl->ms);
    if (!gl->ms)
        return err_set(e, "out of memory");
    const cJSON *m;
    cJSON_ArrayForEach(m, ms) {
        if (!read_milestone(m, &gl->ms[gl->nms], e))
            return err_prefix(e, "lab '%s'", gl->id);
        gl->nms++;
    }
    return true;
}

bool report_read_json(const cJSON *doc, grade_report *report, cl_err *err)
{
    char format[64] = "";
    int version = 0;
    bool ok = true;
    memset(report, 0, sizeof *report);
    if (!cJSON_IsObject(doc))
        return err_set(err, "not a JSON object");
    if (!jsonf_get_str(doc, "format", format, sizeof format, err) ||
        strcmp(format, REPORT_FORMAT) != 0)
        return err_set(err, "not a cudalab grade report (no \"format\": \"%s\")", REPORT_FORMAT);
    if (!jsonf_get_int(doc, "format_version", &version, err))
        return false;
    if (version > REPORT_FORMAT_VERSION)
        return err_set(err, "a grade report of a newer format (%d; this cudalab reads up to %d)",
                       version, REPORT_FORMAT_VERSION);
    if (version < REPORT_FORMAT_VERSION)
        return err_set(err, "a grade report of an older format (%d), bound to no assignment: "
                          "grade again with this cudalab",
                       version);
    if (!(jsonf_get_str(doc, "cudalab", report->version, sizeof report->version, err) &&
          jsonf_get_str(doc, "learner", report->learner, sizeof report->learner, err) &&
          jsonf_get_str(doc, "assignment", report->assignment, sizeof report->assignment, err) &&
          jsonf_get_str(doc, "hostname", report->hostname, sizeof report->hostname, err) &&
          jsonf_get_str(doc, "error", report->error, sizeof report->error, err) &&
          jsonf_get_str(doc, "workspace", report->workspace, sizeof report->workspace, err) &&
          jsonf_get_str(doc, "created", report->created, sizeof report->created, err) &&
          jsonf_get_u64(doc, "seed", &report->seed, err) &&
          jsonf_get_double(doc, "seconds", &report->seconds, 0, err) &&
          jsonf_get_double(doc, "score", &report->score, 0, err) &&
          jsonf_get_double(doc, "max_score", &report->max_score, 0, err)))
        return false;
    cl_err ae = {{0}};
    const char *as = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "assignment"));
    if (as && as[0] && !grade_assignment_check(as, &ae))
        return err_set(err, "field 'assignment': %s", ae.msg);
    int quizzes = GRADE_QUIZZES_COUNT;   /* absent before --quizzes: counted */
    static const char *const modes[] = {[GRADE_QUIZZES_COUNT] = "count",
                                        [GRADE_QUIZZES_IGNORE] = "ignore"};
    if (!jsonf_get_enum(doc, "quizzes", modes, 2, &quizzes, err))
        return false;
    report->quizzes = (grade_quizzes)quizzes;
    /* absent before the sandbox was recorded */
    const char *sb = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "sandbox"));
    snprintf(report->sandbox, sizeof report->sandbox, "%s", sb ? sb : "");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(doc, "device");
    if (d && !record_get_device(d, &report->dev, err))
        return false;
    const cJSON *labs = jsonf_get_array(doc, "labs", 256, err, &ok);
    if (!ok)
        return false;
    int n = cJSON_GetArraySize(labs);
    report->labs = calloc(n > 0 ? (size_t)n : 1, sizeof *report->labs);
    if (!report->labs)
        return err_set(err, "out of memory");
    const cJSON *l;
    cJSON_ArrayForEach(l, labs) {
        if (!read_lab(l, &report->labs[report->nlabs], err)) {
            report->nlabs++;
            return false;
        }
        report->nlabs++;
    }
    return true;
}
