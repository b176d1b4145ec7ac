/* report_text.c - the grade report as JUnit XML and as CSV. */
#include "grade/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

/* Writes s as XML character data (or an attribute value): markup escaped,
 * control characters XML forbids and bytes that are not UTF-8 as '?'. */
static void xml_text(strbuf *f, const char *s)
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
            strbuf_putc(f, '?');
            p++;
            continue;
        }
        if (len > 1) {
            strbuf_add(f, p, (size_t)len);
            p += len;
            continue;
        }
        switch (c) {
        case '&': strbuf_str(f, "&amp;"); break;
        case '<': strbuf_str(f, "&lt;"); break;
        case '>': strbuf_str(f, "&gt;"); break;
        case '"': strbuf_str(f, "&quot;"); break;
        case '\'': strbuf_str(f, "&apos;"); break;
        default:
            strbuf_putc(f, c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : (char)c);
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
    strbuf sb;
    strbuf_init(&sb, 0);
    strbuf *f = &sb;
    size_t tests = 0, fails = 0;
    for (size_t i = 0; i < r->nlabs; i++) {
        tests += r->labs[i].nms;
        fails += failures_of(&r->labs[i]);
    }
    strbuf_str(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"cudalab grade: ");
    xml_text(f, r->learner);
    strbuf_printf(f, "\" tests=\"%zu\" failures=\"%zu\" time=\"%.3f\">\n", tests, fails, r->seconds);
    for (size_t i = 0; i < r->nlabs; i++) {
        const grade_lab *gl = &r->labs[i];
        strbuf_str(f, "  <testsuite name=\"");
        xml_text(f, gl->id);
        strbuf_printf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\" timestamp=\"",
                gl->nms, failures_of(gl), gl->seconds);
        xml_text(f, r->created);
        strbuf_str(f, "\">\n    <properties>\n      <property name=\"learner\" value=\"");
        xml_text(f, r->learner);
        strbuf_str(f, "\"/>\n      <property name=\"device\" value=\"");
        xml_text(f, r->dev.name);
        strbuf_printf(f, "\"/>\n      <property name=\"seed\" value=\"%llu\"/>\n"
                   "      <property name=\"kernel_sha256\" value=\"%s\"/>\n"
                   "      <property name=\"score\" value=\"%g of %g\"/>\n    </properties>\n",
                (unsigned long long)r->seed, gl->kernel_sha, gl->score, gl->max_score);
        for (size_t k = 0; k < gl->nms; k++) {
            const grade_milestone *g = &gl->ms[k];
            strbuf_str(f, "    <testcase classname=\"");
            xml_text(f, gl->id);
            strbuf_str(f, "\" name=\"");
            xml_text(f, g->id);
            strbuf_str(f, ": ");
            xml_text(f, g->text);
            strbuf_str(f, "\" time=\"0\">\n");
            if (g->passed) {
                strbuf_str(f, "      <system-out>");
                xml_text(f, g->value);
                strbuf_str(f, "</system-out>\n");
            } else {
                strbuf_str(f, "      <failure type=\"");
                xml_text(f, g->cause[0] ? g->cause : "not_reached");
                strbuf_str(f, "\" message=\"");
                xml_text(f, g->value[0] ? g->value : g->cause);
                strbuf_str(f, "\">");
                xml_text(f, g->why);
                strbuf_str(f, "</failure>\n");
            }
            strbuf_str(f, "    </testcase>\n");
        }
        strbuf_str(f, "  </testsuite>\n");
    }
    strbuf_str(f, "</testsuites>\n");
    if (sb.failed) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_take(&sb);
}

/* One CSV field (RFC 4180): quoted when it holds a comma, a quote or a
 * line break, quotes doubled. */
static void csv_field(strbuf *f, const char *s, bool last)
{
    if (strpbrk(s, ",\"\r\n")) {
        strbuf_putc(f, '"');
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                strbuf_putc(f, '"');
            strbuf_putc(f, *p);
        }
        strbuf_putc(f, '"');
    } else {
        strbuf_str(f, s);
    }
    strbuf_str(f, last ? "\r\n" : ",");
}

static void csv_number(strbuf *f, double v)
{
    char b[32];
    snprintf(b, sizeof b, "%g", v);
    csv_field(f, b, false);
}

char *report_csv(const grade_report *r)
{
    strbuf sb;
    strbuf_init(&sb, 0);
    strbuf *f = &sb;
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
    if (sb.failed) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_take(&sb);
}
