/* report_text.c - the grade report as JUnit XML and as CSV. */
#include "grade/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes s as XML character data (or an attribute value): markup escaped,
 * control characters XML forbids and bytes that are not UTF-8 as '?'. */
static void xml_text(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        int len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                : (c & 0xF8) == 0xF0 ? 4 : 0;
        bool ok = len > 0 && (len != 2 || c >= 0xC2);
        for (int k = 1; ok && k < len; k++)
            ok = (p[k] & 0xC0) == 0x80;
        if (!ok) {
            fputc('?', f);
            p++;
            continue;
        }
        if (len > 1) {
            fwrite(p, 1, (size_t)len, f);
            p += len;
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            fputc(c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : (int)c, f);
        }
        p++;
    }
}

static size_t failures_of(const grade_lab *gl)
{
    size_t n = 0;
    for (size_t i = 0; i < gl->nms; i++)
        n += !gl->ms[i].passed;
    return n;
}

char *report_junit(const grade_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    size_t tests = 0, fails = 0;
    for (size_t i = 0; i < r->nlabs; i++) {
        tests += r->labs[i].nms;
        fails += failures_of(&r->labs[i]);
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab grade: ", f);
    xml_text(f, r->learner);
    fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" time=\"%.3f\">\n", tests, fails, r->seconds);
    for (size_t i = 0; i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        fputs("  <testsuite name=\"", f);
        xml_text(f, gl->id);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\" timestamp=\"",
                gl->nms, failures_of(gl), gl->seconds);
        xml_text(f, r->created);
        fputs("\">\n    <properties>\n      <property name=\"learner\" value=\"", f);
        xml_text(f, r->learner);
        fputs("\"/>\n      <property name=\"device\" value=\"", f);
        xml_text(f, r->dev.name);
        fprintf(f, "\"/>\n      <property name=\"seed\" value=\"%llu\"/>\n"
                   "      <property name=\"kernel_sha256\" value=\"%s\"/>\n"
                   "      <property name=\"score\" value=\"%g of %g\"/>\n    </properties>\n",
                (unsigned long long)r->seed, gl->kernel_sha, gl->score, gl->max_score);
        for (size_t k = 0; k < gl->nms; k++) {
            const grade_milestone *g = &gl->ms[k];
            fputs("    <testcase classname=\"", f);
            xml_text(f, gl->id);
            fputs("\" name=\"", f);
            xml_text(f, g->id);
            fputs(": ", f);
            xml_text(f, g->text);
            fputs("\" time=\"0\">\n", f);
            if (g->passed) {
                fputs("      <system-out>", f);
                xml_text(f, g->value);
                fputs("</system-out>\n", f);
            } else {
                fputs("      <failure type=\"", f);
                xml_text(f, g->cause[0] ? g->cause : "not_reached");
                fputs("\" message=\"", f);
                xml_text(f, g->value[0] ? g->value : g->cause);
                fputs("\">", f);
                xml_text(f, g->why);
                fputs("</failure>\n", f);
            }
            fputs("    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* One CSV field (RFC 4180): quoted when it holds a comma, a quote or a
 * line break, quotes doubled. */
static void csv_field(FILE *f, const char *s, bool last)
{
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                fputc('"', f);
            fputc(*p, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputs(last ? "\r\n" : ",", f);
}

static void csv_number(FILE *f, double v)
{
    char b[32];
    snprintf(b, sizeof b, "%g", v);
    csv_field(f, b, false);
}

char *report_csv(const grade_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    static const char *const head[] = {"learner", "lab", "milestone", "kind", "points",
                                       "earned", "passed", "value", "size", "cause", "device",
                                       "created"};
    size_t nh = sizeof head / sizeof head[0];
    for (size_t i = 0; i < nh; i++)
        csv_field(f, head[i], i + 1 == nh);
    for (size_t i = 0; i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        for (size_t k = 0; k < gl->nms; k++) {
            const grade_milestone *g = &gl->ms[k];
            csv_field(f, r->learner, false);
            csv_field(f, gl->id, false);
            csv_field(f, g->id, false);
            csv_field(f, g->quiz ? "quiz" : "measured", false);
            csv_number(f, g->points);
            csv_number(f, g->earned);
            csv_field(f, g->passed ? "true" : "false", false);
            csv_field(f, g->value, false);
            csv_field(f, g->size, false);
            csv_field(f, g->cause, false);
            csv_field(f, r->dev.name, false);
            csv_field(f, r->created, true);
        }
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
