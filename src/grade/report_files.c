/* report_files.c - Gradescope's results.json, and writing every format. */
#include "grade/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/atomicfile.h"
#include "core/jsonf.h"
#include "core/paths.h"
#include "grade/sign.h"

static const struct {
    const char *name, *file;
} kinds[REPORT_NKINDS] = {
    [REPORT_JSON] = {"json", "report.json"},
    [REPORT_GRADESCOPE] = {"gradescope", "results.json"},
    [REPORT_JUNIT] = {"junit", "junit.xml"},
    [REPORT_CSV] = {"csv", "grades.csv"},
};

const char *report_kind_name(report_kind k)
{
    return (unsigned)k < REPORT_NKINDS ? kinds[k].name : "unknown";
}

const char *report_file_name(report_kind k)
{
    return (unsigned)k < REPORT_NKINDS ? kinds[k].file : "unknown";
}

bool report_kind_from_name(const char *name, report_kind *k)
{
    for (int i = 0; i < REPORT_NKINDS; i++) {
        if (strcmp(name, kinds[i].name) == 0) {
            *k = (report_kind)i;
            return true;
        }
    }
    return false;
}

/* One test of results.json: a milestone. */
static cJSON *gs_test(const grade_lab *gl, const grade_milestone *g)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    char name[GRADE_ID_MAX + GRADE_TEXT_MAX + 8], out[GRADE_WHY_MAX + 200];
    snprintf(name, sizeof name, "%s: %s", gl->id, g->text);
    if (g->passed)
        snprintf(out, sizeof out, "Reached: %s", g->value[0] ? g->value : "yes");
    else
        snprintf(out, sizeof out, "Not reached%s%s. %s", g->value[0] ? ": " : "", g->value,
                 g->why);
    jsonf_put_str(t, "name", name);
    jsonf_put_double(t, "score", g->earned);
    jsonf_put_double(t, "max_score", g->points);
    jsonf_put_str(t, "status", g->passed ? "passed" : "failed");
    jsonf_put_str(t, "output", out);
    jsonf_put_str(t, "visibility", "visible");
    return t;
}

cJSON *report_gradescope(const grade_report *r)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char text[1024];
    snprintf(text, sizeof text,
             "cudalab %s graded %s on %s (seed %llu): %g of %g points. Every milestone was "
             "measured again from the submitted source.",
             r->version, r->learner, r->dev.name[0] ? r->dev.name : "no device",
             (unsigned long long)r->seed, r->score, r->max_score);
    jsonf_put_double(o, "score", r->score);
    jsonf_put_int(o, "execution_time", ceil(r->seconds));
    jsonf_put_str(o, "output", text);
    jsonf_put_str(o, "visibility", "visible");
    cJSON *tests = cJSON_AddArrayToObject(o, "tests");
    for (size_t i = 0; tests && i < r->nlabs; i++)
        for (size_t k = 0; k < r->labs[i].nms; k++)
            cJSON_AddItemToArray(tests, gs_test(&r->labs[i], &r->labs[i].ms[k]));
    cJSON *board = cJSON_AddArrayToObject(o, "leaderboard");
    for (size_t i = 0; board && i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        if (gl->best_ms <= 0)
            continue;
        cJSON *e = cJSON_CreateObject();
        char name[GRADE_ID_MAX + RUN_SIZE_MAX + 16];
        snprintf(name, sizeof name, "%s ms at %s", gl->id, gl->best_size);
        jsonf_put_str(e, "name", name);
        jsonf_put_double(e, "value", gl->best_ms);
        jsonf_put_str(e, "order", "asc");
        cJSON_AddItemToArray(board, e);
    }
    return o;
}

/* The text of one format, signed when keylen > 0; *sidecar receives a CSV
 * signature file's content (malloc'd) or NULL. */
static char *render(const grade_report *r, report_kind k, const void *key, size_t keylen,
                    char **sidecar, cl_err *e)
{
    char *text = NULL;
    *sidecar = NULL;
    if (k == REPORT_JSON || k == REPORT_GRADESCOPE) {
        cJSON *doc = k == REPORT_JSON ? report_json(r) : report_gradescope(r);
        if (doc && (keylen == 0 || sign_json(doc, k == REPORT_GRADESCOPE, key, keylen, e)))
            text = cJSON_Print(doc);
        cJSON_Delete(doc);
        if (text) {
            size_t n = strlen(text);
            char *nl = realloc(text, n + 2);
            if (nl) {
                nl[n] = '\n';
                nl[n + 1] = '\0';
                text = nl;
            }
        }
    } else if (k == REPORT_JUNIT) {
        char *xml = report_junit(r);
        text = xml && keylen ? sign_xml(xml, key, keylen, e) : xml;
        if (text != xml)
            free(xml);
    } else {
        text = report_csv(r);
        if (text && keylen && !(*sidecar = sign_sidecar(text, strlen(text), key, keylen, e))) {
            free(text);
            text = NULL;
        }
    }
    if (!text && !e->msg[0])
        err_set(e, "out of memory writing the %s report", report_kind_name(k));
    return text;
}

bool report_write(const grade_report *r, const char *dir, const report_kind *which, size_t n,
                  const void *key, size_t keylen, cl_err *e)
{
    if (!paths_mkdir_p(dir, e))
        return err_prefix(e, "cannot make the report folder");
    for (size_t i = 0; i < n; i++) {
        char path[CL_PATH_MAX], side[CL_PATH_MAX + 8];
        if (!paths_join(path, sizeof path, dir, report_file_name(which[i])))
            return err_set(e, "the report folder's path is too long");
        char *sidecar = NULL;
        char *text = render(r, which[i], key, keylen, &sidecar, e);
        if (!text)
            return false;
        bool ok = atomicfile_write(path, text, strlen(text), e);
        free(text);
        snprintf(side, sizeof side, "%s%s", path, SIGN_SIDECAR);
        if (ok && sidecar)
            ok = atomicfile_write(side, sidecar, strlen(sidecar), e);
        else if (ok && which[i] == REPORT_CSV)
            remove(side);   /* an unsigned CSV must not keep an older signature */
        free(sidecar);
        if (!ok)
            return err_prefix(e, "cannot write %s", path);
    }
    return true;
}
