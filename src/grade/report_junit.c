/* report_junit.c - the grade report as JUnit XML: a testsuite a lab with
 * the submission's binding in its <properties>, a testcase a milestone, a
 * failure carrying its diagnosis, a quiz named self-reported (skipped when
 * not counted); a report that could not be graded is one testcase in error.
 * Text is escaped by core/escape.h. */
#include "grade/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/escape.h"
#include "core/strbuf.h"

/* ' name="value"', the value escaped. */
static void attr(strbuf *f, const char *name, const char *value)
{
    strbuf_printf(f, " %s=\"", name);
    escape_xml_attr(f, value);
    strbuf_putc(f, '"');
}

static void property(strbuf *f, const char *name, const char *value)
{
    strbuf_str(f, "      <property");
    attr(f, "name", name);
    attr(f, "value", value);
    strbuf_str(f, "/>\n");
}

/* The submission's binding, and the lab's sources and score (gl NULL: a
 * report that could not be graded). */
static void properties(strbuf *f, const grade_report *r, const grade_lab *gl)
{
    char num[64];
    strbuf_str(f, "    <properties>\n");
    property(f, "learner", r->learner);
    property(f, "assignment", r->assignment);
    property(f, "hostname", r->hostname);
    property(f, "sandbox", r->sandbox);
    property(f, "created", r->created);
    property(f, "cudalab", r->version);
    property(f, "device", r->dev.name);
    snprintf(num, sizeof num, "%llu", (unsigned long long)r->seed);
    property(f, "seed", num);
    property(f, "quizzes", grade_quizzes_name(r->quizzes));
    if (gl) {
        property(f, "kernel_sha256", gl->kernel_sha);
        property(f, "launcher_sha256", gl->launcher_sha);
        snprintf(num, sizeof num, "%g of %g", gl->score, gl->max_score);
        property(f, "score", num);
    } else {
        property(f, "error", r->error);
    }
    strbuf_str(f, "    </properties>\n");
}

/* A milestone a testcase: a quiz named self-reported, one not counted
 * (--quizzes ignore) skipped with the reason. */
static void testcase(strbuf *f, const grade_lab *gl, const grade_milestone *g)
{
    char name[GRADE_ID_MAX + GRADE_TEXT_MAX + 32];
    snprintf(name, sizeof name, "%s: %s%s", g->id, g->text,
             g->quiz ? " (quiz, self-reported)" : "");
    strbuf_str(f, "    <testcase");
    attr(f, "classname", gl->id);
    attr(f, "name", name);
    strbuf_str(f, " time=\"0\">\n");
    if (g->not_counted) {
        strbuf_str(f, "      <skipped");
        attr(f, "message", g->why);
        strbuf_str(f, "/>\n");
    } else if (g->passed) {
        strbuf_str(f, "      <system-out>");
        if (g->quiz)
            strbuf_str(f, "self-reported: ");
        escape_xml_text(f, g->value);
        strbuf_str(f, "</system-out>\n");
    } else {
        strbuf_str(f, "      <failure");
        attr(f, "type", g->cause[0] ? g->cause : "not_reached");
        attr(f, "message", g->value[0] ? g->value : g->cause);
        strbuf_putc(f, '>');
        escape_xml_text(f, g->why);
        strbuf_str(f, "</failure>\n");
    }
    strbuf_str(f, "    </testcase>\n");
}

static size_t failures_of(const grade_lab *gl)
{
    size_t n = 0;
    for (size_t i = 0; i < gl->nms; i++)
        n += !gl->ms[i].passed && !gl->ms[i].not_counted;
    return n;
}

static void suite(strbuf *f, const grade_report *r, const grade_lab *gl)
{
    strbuf_str(f, "  <testsuite");
    attr(f, "name", gl->id);
    strbuf_printf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\"", gl->nms,
                  failures_of(gl), gl->seconds);
    attr(f, "timestamp", r->created);
    strbuf_str(f, ">\n");
    properties(f, r, gl);
    for (size_t k = 0; k < gl->nms; k++)
        testcase(f, gl, &gl->ms[k]);
    strbuf_str(f, "  </testsuite>\n");
}

/* A report that could not be graded: one testcase in error, saying why. */
static void not_graded_suite(strbuf *f, const grade_report *r)
{
    strbuf_printf(f, "  <testsuite name=\"cudalab\" tests=\"1\" failures=\"0\" errors=\"1\" "
                     "time=\"%.3f\"", r->seconds);
    attr(f, "timestamp", r->created);
    strbuf_str(f, ">\n");
    properties(f, r, NULL);
    strbuf_str(f, "    <testcase classname=\"cudalab\" name=\"grading\" time=\"0\">\n"
                  "      <error type=\"not_graded\"");
    attr(f, "message", r->error);
    strbuf_putc(f, '>');
    escape_xml_text(f, r->error);
    strbuf_str(f, "</error>\n    </testcase>\n  </testsuite>\n");
}

char *report_junit(const grade_report *report)
{
    strbuf sb;
    strbuf_init(&sb, 0);
    strbuf *f = &sb;
    size_t tests = 0, fails = 0, errors = report->error[0] ? 1 : 0;
    for (size_t i = 0; i < report->nlabs; i++) {
        tests += report->labs[i].nms;
        fails += failures_of(&report->labs[i]);
    }
    char name[sizeof report->learner + 32];
    snprintf(name, sizeof name, "cudalab grade: %s", report->learner);
    strbuf_str(f, REPORT_XML_DECLARATION "<testsuites");
    attr(f, "name", name);
    strbuf_printf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.3f\">\n",
                  tests + errors, fails, errors, report->seconds);
    if (report->error[0])
        not_graded_suite(f, report);
    for (size_t i = 0; i < report->nlabs && !report->error[0]; i++)
        suite(f, report, &report->labs[i]);
    strbuf_str(f, "</testsuites>\n");
    if (sb.failed) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_take(&sb);
}
