/* test_grade_exports.c - every export read by a real consumer, with
 * hostile learner names: the JUnit XML against a schema (xmllint --schema)
 * and through expat, CSV through Python's csv module, HTML through Python's
 * html.parser, Markdown through md4c with GitHub's dialect, the JSON files
 * as strict UTF-8 JSON, and what `grade` and `class` print to a terminal.
 * A consumer that is not installed is said so, and only its check skipped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cjson/cJSON.h>
#include <cmocka.h>
#include <md4c.h>

#include "core/escape.h"
#include "grade/classview.h"
#include "grade/report.h"
#include "grade_fixture.h"
#include "support.h"

static const char *const hostile[] = {
    "<script>alert(1)</script>",
    "[x](http://e)",
    "=HYPERLINK(\"http://e\",\"x\")",
    "+1",
    "-2",
    "@SUM(A1)",
    "tab\there cr\rhere nl\nhere",
    "\x1b]0;x\x07",
    "\xff\xfe",
    "www.e.com *em* _u_ `c` ~~s~~ # h | p ![i](j) &amp;",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

static char dir[CL_PATH_MAX], cls[CL_PATH_MAX + 16];
static bool have_python, have_xmllint;

static bool have(const char *tool)
{
    ts_output o = {0};
    bool ok = ts_shell(&o, false, "command -v %s", tool) == 0;
    ts_output_free(&o);
    if (!ok)
        printf("%s is not installed: the checks that use it are skipped\n", tool);
    return ok;
}

/* Writes every format of a report for each hostile name into cls/l<i>;
 * the first two share a kernel, so that the class flags them by name. */
static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(dir, sizeof dir, "exports"))
        return -1;
    snprintf(cls, sizeof cls, "%s/class", dir);
    for (size_t i = 0; i < NHOSTILE; i++) {
        char out[CL_PATH_MAX + 32], sha[65];
        snprintf(out, sizeof out, "%s/l%zu", cls, i);
        snprintf(sha, sizeof sha, "%064zu", i < 2 ? (size_t)0 : i);
        grade_report r;
        gf_report(&r, hostile[i], 1.0 + (double)i, sha);
        gf_write_all(&r, out, true);
        grade_report_free(&r);
    }
    have_python = have("python3");
    have_xmllint = have("xmllint");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(dir);
    return 0;
}

/* s as the exports clean it (malloc'd). */
static char *clean(const char *s, escape_ws ws)
{
    char *c = escape_dup(s, ws);
    assert_non_null(c);
    return c;
}

/* What a consumer saw in path (consumers.py KIND PATH), as JSON. */
static cJSON *consume(const char *kind, const char *path)
{
    char script[CL_PATH_MAX];
    ts_data_path(script, sizeof script, "grade/data/consumers.py");
    ts_output o = {0};
    if (ts_shell(&o, false, "python3 '%s' %s '%s'", script, kind, path) != 0)
        fail_msg("python3 could not read %s as %s: %s", path, kind, o.err);
    cJSON *seen = cJSON_Parse(o.out);
    ts_output_free(&o);
    assert_non_null(seen);
    return seen;
}

static const char *str(const cJSON *o, const char *k)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return s ? s : "(missing)";
}

static void test_junit(void **state)
{
    (void)state;
    char xsd[CL_PATH_MAX], path[CL_PATH_MAX + 64];
    ts_data_path(xsd, sizeof xsd, "grade/data/junit.xsd");
    for (size_t i = 0; i < NHOSTILE; i++) {
        snprintf(path, sizeof path, "%s/l%zu/junit.xml", cls, i);
        ts_output o = {0};
        if (have_xmllint)
            assert_int_equal(ts_shell(&o, false, "xmllint --noout --schema '%s' '%s'", xsd, path),
                             0);
        ts_output_free(&o);
        if (!have_python)
            continue;
        cJSON *seen = consume("xml", path);
        char *name = clean(hostile[i], ESCAPE_WS_KEEP);
        char whole[512];
        snprintf(whole, sizeof whole, "cudalab grade: %s", name);
        assert_string_equal(str(seen, "name"), whole);
        assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(seen, "properties"), "learner"),
                            name);
        free(name);
        cJSON_Delete(seen);
    }
    /* A report that could not be graded validates too. */
    grade_report r;
    gf_report(&r, hostile[7], 1.0, "");
    grade_report_not_graded(&r, "cannot grade: no CUDA device \x1b[31m found");
    char out[CL_PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/notgraded", dir);
    gf_write_all(&r, out, false);
    grade_report_free(&r);
    snprintf(path, sizeof path, "%s/junit.xml", out);
    ts_output o = {0};
    if (have_xmllint)
        assert_int_equal(ts_shell(&o, false, "xmllint --noout --schema '%s' '%s'", xsd, path), 0);
    ts_output_free(&o);
}

/* What a spreadsheet-safe cell of s reads as. */
static char *csv_cell(const char *s)
{
    char *c = clean(s, ESCAPE_WS_KEEP);
    bool neutral = c[0] && strchr("=+-@\t\r", c[0]);
    size_t n = strlen(c) + 2;
    char *out = malloc(n);
    snprintf(out, n, "%s%s", neutral ? "'" : "", c);
    free(c);
    return out;
}

static void check_no_formula(const cJSON *rows)
{
    const cJSON *row, *cell;
    cJSON_ArrayForEach(row, rows) cJSON_ArrayForEach(cell, row)
    {
        const char *s = cJSON_GetStringValue(cell);
        assert_non_null(s);
        if (s[0] && strchr("=+-@\t\r", s[0]))
            fail_msg("a cell begins with a formula character: %s", s);
    }
}

static void test_csv(void **state)
{
    (void)state;
    if (!have_python)
        skip();
    char path[CL_PATH_MAX + 64];
    for (size_t i = 0; i < NHOSTILE; i++) {
        snprintf(path, sizeof path, "%s/l%zu/grades.csv", cls, i);
        cJSON *rows = consume("csv", path);
        assert_int_equal(cJSON_GetArraySize(rows), 4);
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) assert_int_equal(cJSON_GetArraySize(row), 17);
        char *want = csv_cell(hostile[i]);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 1), 0)),
                            want);
        free(want);
        check_no_formula(rows);
        cJSON_Delete(rows);
    }
    /* the class table too */
    class_opts o = {.key = gf_key, .keylen = strlen(gf_key)};
    class_view v;
    cl_err e = {{0}};
    assert_true(class_load(cls, &o, &v, &e));
    assert_int_equal(v.nrows, NHOSTILE);
    char *csv = class_csv(&v);
    class_free(&v);
    snprintf(path, sizeof path, "%s/class.csv", dir);
    assert_true(ts_write(path, csv));
    free(csv);
    cJSON *rows = consume("csv", path);
    assert_int_equal(cJSON_GetArraySize(rows), 1 + (int)NHOSTILE);
    check_no_formula(rows);
    for (size_t i = 0; i < NHOSTILE; i++) {
        char *want = csv_cell(hostile[i]);
        bool found = false;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) found |=
            strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(row, 0)), want) == 0;
        if (!found)
            fail_msg("no class row for learner %zu", i);
        free(want);
    }
    cJSON_Delete(rows);
}

static void test_html(void **state)
{
    (void)state;
    if (!have_python)
        skip();
    class_opts o = {.key = gf_key, .keylen = strlen(gf_key)};
    class_view v;
    cl_err e = {{0}};
    assert_true(class_load(cls, &o, &v, &e));
    char *html = class_html(&v);
    class_free(&v);
    char path[CL_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/class.html", dir);
    assert_true(ts_write(path, html));
    free(html);
    cJSON *seen = consume("html", path);
    static const char allowed[] = " body h1 h2 head html li meta style table td title tr ul ";
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(seen, "tags"))
    {
        char word[64];
        snprintf(word, sizeof word, " %s ", cJSON_GetStringValue(it));
        if (!strstr(allowed, word))
            fail_msg("the page holds a <%s> element", cJSON_GetStringValue(it));
    }
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(seen, "attrs"))
    {
        const char *a = cJSON_GetStringValue(it);
        if (strcmp(a, "charset") != 0 && strcmp(a, "class") != 0)
            fail_msg("the page holds an attribute %s", a);
    }
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(seen, "rows");
    assert_int_equal(cJSON_GetArraySize(rows), 1 + (int)NHOSTILE);
    for (size_t i = 0; i < NHOSTILE; i++) {
        char *want = clean(hostile[i], ESCAPE_WS_VISIBLE);
        bool found = false;
        const cJSON *row;
        cJSON_ArrayForEach(row, rows) found |=
            strcmp(cJSON_GetStringValue(cJSON_GetArrayItem(row, 0)), want) == 0;
        if (!found)
            fail_msg("no row shows learner %zu as text", i);
        free(want);
    }
    cJSON_Delete(seen);
}

/* What md4c saw: the table's rows and cells, the first cell of each body
 * row (entities decoded), and anything that is markup beyond a table. */
typedef struct md_seen {
    int rows, cells, bad;
    int cell;                 /* the cell being read in its row, -1 outside */
    char first[16][512];
    int nfirst;
    char text[512];
} md_seen;

static int md_enter(MD_BLOCKTYPE t, void *detail, void *ud)
{
    md_seen *s = ud;
    (void)detail;
    if (t == MD_BLOCK_TR)
        s->rows++, s->cell = 0;
    else if (t == MD_BLOCK_TD || t == MD_BLOCK_TH)
        s->text[0] = '\0';
    else if (t == MD_BLOCK_H || t == MD_BLOCK_HTML || t == MD_BLOCK_CODE || t == MD_BLOCK_QUOTE)
        s->bad++;
    return 0;
}

static int md_leave(MD_BLOCKTYPE t, void *detail, void *ud)
{
    md_seen *s = ud;
    (void)detail;
    if (t == MD_BLOCK_TD || t == MD_BLOCK_TH) {
        if (t == MD_BLOCK_TD && s->cell == 0 && s->nfirst < 16)
            snprintf(s->first[s->nfirst++], sizeof s->first[0], "%s", s->text);
        s->cell++;
        s->cells++;
    }
    return 0;
}

static int md_span(MD_SPANTYPE t, void *detail, void *ud)
{
    (void)t;
    (void)detail;
    ((md_seen *)ud)->bad++;   /* no link, emphasis, code or image is ever meant */
    printf("  md4c saw a span of type %d\n", (int)t);
    return 0;
}

static int md_leave_span(MD_SPANTYPE t, void *detail, void *ud)
{
    (void)t;
    (void)detail;
    (void)ud;
    return 0;
}

static int md_text(MD_TEXTTYPE t, const MD_CHAR *text, MD_SIZE n, void *ud)
{
    md_seen *s = ud;
    static const char *const entities[][2] = {
        {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"},
    };
    char piece[512];
    snprintf(piece, sizeof piece, "%.*s", (int)n, text);
    if (t == MD_TEXT_HTML)
        s->bad++;
    if (t == MD_TEXT_ENTITY)
        for (size_t i = 0; i < 5; i++)
            if (strcmp(piece, entities[i][0]) == 0)
                snprintf(piece, sizeof piece, "%s", entities[i][1]);
    size_t at = strlen(s->text);
    snprintf(s->text + at, sizeof s->text - at, "%s", piece);
    return 0;
}

static void test_markdown(void **state)
{
    (void)state;
    class_opts o = {.key = gf_key, .keylen = strlen(gf_key)};
    class_view v;
    cl_err e = {{0}};
    assert_true(class_load(cls, &o, &v, &e));
    char *md = class_markdown(&v);
    size_t ncells = 9 + v.ncols + 2 + 1;   /* fixed, milestones, two labs' best, notes */
    class_free(&v);
    md_seen s = {.cell = -1};
    MD_PARSER p = {
        .abi_version = 0,
        .flags = MD_DIALECT_GITHUB,
        .enter_block = md_enter,
        .leave_block = md_leave,
        .enter_span = md_span,
        .leave_span = md_leave_span,
        .text = md_text,
    };
    assert_int_equal(md_parse(md, (MD_SIZE)strlen(md), &p, &s), 0);
    printf("%s", md);
    free(md);
    assert_int_equal(s.bad, 0);
    assert_int_equal(s.rows, 1 + (int)NHOSTILE);
    assert_int_equal(s.cells, (int)((1 + NHOSTILE) * ncells));
    for (size_t i = 0; i < NHOSTILE; i++) {
        char *want = clean(hostile[i], ESCAPE_WS_VISIBLE);
        bool found = false;
        for (int k = 0; k < s.nfirst; k++)
            found |= strcmp(s.first[k], want) == 0;
        if (!found)
            fail_msg("no Markdown row reads learner %zu as text", i);
        free(want);
    }
}

static void test_json(void **state)
{
    (void)state;
    if (!have_python)
        skip();
    char path[CL_PATH_MAX + 64];
    for (size_t i = 0; i < NHOSTILE; i++) {
        snprintf(path, sizeof path, "%s/l%zu/results.json", cls, i);
        cJSON *gs = consume("json", path);
        assert_string_equal(str(gs, "output_format"), "text");
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(gs, "tests"))
            assert_string_equal(str(t, "output_format"), "text");
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(gs, "extra_data"), "cudalab");
        char *name = clean(hostile[i], ESCAPE_WS_LINES);
        assert_string_equal(str(b, "learner"), name);
        free(name);
        cJSON_Delete(gs);
        snprintf(path, sizeof path, "%s/l%zu/report.json", cls, i);
        cJSON *rep = consume("json", path);
        name = clean(hostile[i], ESCAPE_WS_KEEP);
        assert_string_equal(str(rep, "learner"), name);
        free(name);
        cJSON_Delete(rep);
    }
}

/* Text meant for a terminal: no escape sequence, bell or carriage return,
 * and valid UTF-8 (cleaning it keeps it as it is). */
static void check_terminal(const char *what, const char *text)
{
    char *c = clean(text, ESCAPE_WS_LINES);
    if (strcmp(c, text) != 0)
        fail_msg("%s holds control characters or bytes that are not UTF-8:\n%s", what, text);
    free(c);
}

static void test_terminal(void **state)
{
    (void)state;
    char odd[CL_PATH_MAX + 64];
    snprintf(odd, sizeof odd, "%s/\x1b[31mred\x07", cls);
    cl_err e = {{0}};
    assert_true(paths_mkdir_p(odd, &e));
    snprintf(odd + strlen(odd), sizeof odd - strlen(odd), "/x.json");
    assert_true(ts_write(odd, "{ broken"));
    ts_output o = {0};
    setenv(SIGN_KEY_ENV, gf_key, 1);
    assert_int_equal(ts_shell(&o, false, "'%s' class '%s' --format=md", ts_exe(), cls), 0);
    unsetenv(SIGN_KEY_ENV);
    assert_true(ts_contains(o.err, "flagged"));
    assert_true(ts_contains(o.err, "red"));
    check_terminal("class's messages", o.err);
    for (size_t i = 6; i < 9; i++) {
        char out[CL_PATH_MAX + 32];
        snprintf(out, sizeof out, "%s/term%zu", dir, i);
        setenv("HOSTILE_NAME", hostile[i], 1);
        assert_int_equal(ts_shell(&o, false, "'%s' grade --learner \"$HOSTILE_NAME\" "
                                             "--workspace '%s/ws' --data '%s/data' --out '%s'",
                                  ts_exe(), dir, dir, out),
                         3);
        check_terminal("grade's summary", o.out);
        check_terminal("grade's messages", o.err);
        assert_true(ts_contains(o.out, "not graded"));
    }
    unsetenv("HOSTILE_NAME");
    ts_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_junit),    cmocka_unit_test(test_csv),
        cmocka_unit_test(test_html),     cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_json),     cmocka_unit_test(test_terminal),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
