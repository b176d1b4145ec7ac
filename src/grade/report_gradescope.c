/* report_gradescope.c - the grade report as Gradescope's results.json: a
 * test a milestone, the learner's best times on the leaderboard, and what
 * binds it to the submission in extra_data.cudalab.  Every text is plain
 * ("output_format": "text"), cleaned for display (core/escape.h). */
#include "grade/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jsondoc.h"
#include "core/jsonf.h"

#define GS_TEXT "text"   /* Gradescope shows the text as it is, markup and all */

/* One test of results.json: a milestone. */
static cJSON *gs_test(const grade_lab *gl, const grade_milestone *g)
{
    cJSON *t = cJSON_CreateObject();
    if (!t)
        return NULL;
    char name[GRADE_ID_MAX + GRADE_TEXT_MAX + 48], out[GRADE_WHY_MAX + 320];
    /* a quiz's points are the learner's own answers: said in its name and output */
    snprintf(name, sizeof name, "%s: %s%s", gl->id, g->text,
             !g->quiz ? "" : g->not_counted ? " (quiz, self-reported, not counted)"
                                            : " (quiz, self-reported)");
    const char *quiz = !g->quiz ? ""
                     : g->not_counted
                         ? "Not counted: quiz answers are self-reported (--quizzes ignore). "
                         : "Self-reported: the learner's own answer, from their progress store. ";
    if (g->passed)
        snprintf(out, sizeof out, "%sReached: %s", quiz, g->value[0] ? g->value : "yes");
    else
        snprintf(out, sizeof out, "%sNot reached%s%s. %s", quiz, g->value[0] ? ": " : "",
                 g->value, g->why);
    jsonf_put_text(t, "name", name, ESCAPE_WS_VISIBLE);
    jsonf_put_str(t, "name_format", GS_TEXT);
    jsonf_put_double(t, "score", g->earned);
    jsonf_put_double(t, "max_score", g->points);
    jsonf_put_str(t, "status", g->passed ? "passed" : "failed");
    jsonf_put_str(t, "output", out);
    jsonf_put_str(t, "output_format", GS_TEXT);
    jsonf_put_str(t, "visibility", "visible");
    return t;
}

/* What binds the file to one submission: extra_data.cudalab. */
static void put_binding(cJSON *extra, const grade_report *r)
{
    cJSON *b = cJSON_AddObjectToObject(extra, "cudalab");
    if (!b)
        return;
    jsonf_put_str(b, "format", REPORT_GRADESCOPE_FORMAT);
    jsonf_put_str(b, "version", r->version);
    jsonf_put_str(b, "learner", r->learner);
    jsonf_put_str(b, "assignment", r->assignment);
    jsonf_put_str(b, "hostname", r->hostname);
    jsonf_put_str(b, "sandbox", r->sandbox);
    jsonf_put_str(b, "created", r->created);
    jsonf_put_str(b, "device", r->dev.name);
    jsonf_put_u64(b, "seed", r->seed);
    jsonf_put_str(b, "quizzes", grade_quizzes_name(r->quizzes));
    if (r->error[0])
        jsonf_put_str(b, "error", r->error);
    else
        cJSON_AddNullToObject(b, "error");
    cJSON *src = cJSON_AddArrayToObject(b, "sources");
    for (size_t i = 0; src && i < r->nlabs; i++) {
        cJSON *s = cJSON_CreateObject();
        if (!s || !cJSON_AddItemToArray(src, s)) {
            cJSON_Delete(s);
            return;
        }
        jsonf_put_str(s, "lab", r->labs[i].id);
        jsonf_put_str(s, "kernel_sha256", r->labs[i].kernel_sha);
        jsonf_put_str(s, "launcher_sha256", r->labs[i].launcher_sha);
    }
}

/* What the quiz milestones are worth, as a sentence for the output ("" when
 * the report has none). */
static void quiz_sentence(const grade_report *r, char *out, size_t n)
{
    double earned = 0, max = 0;
    size_t quizzes = 0;
    for (size_t i = 0; i < r->nlabs; i++)
        for (size_t k = 0; k < r->labs[i].nms; k++) {
            const grade_milestone *g = &r->labs[i].ms[k];
            quizzes += g->quiz;
            earned += g->quiz ? g->earned : 0;
            max += g->quiz ? g->points : 0;
        }
    if (quizzes == 0)
        out[0] = '\0';
    else if (r->quizzes == GRADE_QUIZZES_IGNORE)
        snprintf(out, n, " The %zu quiz milestone%s listed but not counted (--quizzes ignore): "
                         "their answers are self-reported.",
                 quizzes, quizzes == 1 ? " is" : "s are");
    else
        snprintf(out, n, " Of them, %g of %g points are quiz points, self-reported: the "
                         "learner's own answers from their progress store.",
                 earned, max);
}

static void put_leaderboard(cJSON *o, const grade_report *r)
{
    cJSON *board = cJSON_AddArrayToObject(o, "leaderboard");
    for (size_t i = 0; board && i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        if (gl->best_ms <= 0)
            continue;
        cJSON *e = cJSON_CreateObject();
        if (!e || !cJSON_AddItemToArray(board, e)) {
            cJSON_Delete(e);
            return;
        }
        char name[GRADE_ID_MAX + RUN_SIZE_MAX + 16];
        snprintf(name, sizeof name, "%s ms at %s", gl->id, gl->best_size);
        jsonf_put_text(e, "name", name, ESCAPE_WS_VISIBLE);
        jsonf_put_double(e, "value", gl->best_ms);
        jsonf_put_str(e, "order", "asc");
    }
}

cJSON *report_gradescope(const grade_report *report)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char text[2048], quiz[256];
    quiz_sentence(report, quiz, sizeof quiz);
    if (report->error[0])
        snprintf(text, sizeof text, "cudalab %s could not grade this submission of %s: %s",
                 report->version, report->learner, report->error);
    else
        snprintf(text, sizeof text,
                 "cudalab %s graded %s on %s (seed %llu): %g of %g points. Every measured "
                 "milestone was measured again from the submitted source.%s",
                 report->version, report->learner,
                 report->dev.name[0] ? report->dev.name : "no device",
                 (unsigned long long)report->seed, report->score, report->max_score, quiz);
    jsonf_put_double(o, "score", report->error[0] ? 0.0 : report->score);
    jsonf_put_int(o, "execution_time", ceil(report->seconds));
    jsonf_put_str(o, "output", text);
    jsonf_put_str(o, "output_format", GS_TEXT);
    jsonf_put_str(o, "test_output_format", GS_TEXT);
    jsonf_put_str(o, "test_name_format", GS_TEXT);
    jsonf_put_str(o, "visibility", "visible");
    cJSON *tests = cJSON_AddArrayToObject(o, "tests");
    for (size_t i = 0; tests && i < report->nlabs; i++)
        for (size_t k = 0; k < report->labs[i].nms; k++)
            cJSON_AddItemToArray(tests, gs_test(&report->labs[i], &report->labs[i].ms[k]));
    put_leaderboard(o, report);
    cJSON *extra = cJSON_AddObjectToObject(o, "extra_data");
    if (extra)
        put_binding(extra, report);
    /* Plain text for a browser: valid UTF-8, no control character but tabs
     * and line feeds. */
    if (!jsondoc_clean_strings(o, ESCAPE_WS_LINES)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}
