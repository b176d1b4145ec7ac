/* The command line's contract as a table (tests/cli/cases.txt): each case a
 * shell command running the real binary, its exit code, and text its
 * output must or must not hold.  The file's opening comment describes the
 * format; a failing case is named by its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define MAX_EXPECT 8
#define LINE_MAX_LEN 2048

typedef struct expect {
    char where[4];             /* "out", "err", "any", "no" */
    char text[LINE_MAX_LEN];
} expect;

typedef struct tcase {
    int line;
    int exit_code;
    bool nodev, dev;           /* only without / with a CUDA device */
    char cmd[LINE_MAX_LEN];
    expect ex[MAX_EXPECT];
    int nex;
} tcase;

/* Copies s into out with "{tmp}", "{data}" and "{home}" replaced and, when
 * exe is not NULL, every word "@" replaced by the quoted binary. */
static void expand(const char *s, const char *tmp, const char *exe, char *out, size_t n)
{
    char data[CL_PATH_MAX], home[CL_PATH_MAX];
    ts_data_path(data, sizeof data, ".");
    ts_home_path(home, sizeof home, ".");
    size_t o = 0;
    for (const char *p = s; *p && o + 1 < n; p++) {
        const char *rep = NULL;
        size_t skip = 0;
        char quoted[CL_PATH_MAX + 4];
        if (strncmp(p, "{tmp}", 5) == 0) {
            rep = tmp;
            skip = 5;
        } else if (strncmp(p, "{data}", 6) == 0) {
            rep = data;
            skip = 6;
        } else if (strncmp(p, "{home}", 6) == 0) {
            rep = home;
            skip = 6;
        } else if (exe && *p == '@' && (p == s || strchr(" ;&|(", p[-1])) &&
                   (p[1] == '\0' || p[1] == ' ')) {
            snprintf(quoted, sizeof quoted, "'%s'", exe);
            rep = quoted;
            skip = 1;
        }
        if (!rep) {
            out[o++] = *p;
            continue;
        }
        int w = snprintf(out + o, n - o, "%s", rep);
        o += w > 0 ? (size_t)w : 0;
        if (o >= n)
            o = n - 1;
        p += skip - 1;
    }
    out[o] = '\0';
}

/* Runs of blanks and newlines become one space; leading and trailing ones go. */
static void squeeze(char *s)
{
    size_t o = 0;
    bool blank = false;
    for (size_t i = 0; s[i]; i++) {
        if (isspace((unsigned char)s[i])) {
            blank = o > 0;
            continue;
        }
        if (blank)
            s[o++] = ' ';
        blank = false;
        s[o++] = s[i];
    }
    s[o] = '\0';
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Reads every case of the file; returns how many (at most max). */
static int read_cases(const char *path, tcase *v, int max)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    char buf[LINE_MAX_LEN];
    int n = 0, ln = 0;
    tcase *cur = NULL;
    while (fgets(buf, sizeof buf, f)) {
        ln++;
        char *t = trim(buf);
        if (!*t || *t == '#')
            continue;
        if (isdigit((unsigned char)*t)) {
            char *dollar = strstr(t, " $ ");
            if (!dollar || n == max)
                fail_msg("%s:%d: expected 'EXIT [TAGS] $ COMMAND'", path, ln);
            cur = &v[n++];
            memset(cur, 0, sizeof *cur);
            cur->line = ln;
            cur->exit_code = atoi(t);
            *dollar = '\0';
            cur->nodev = strstr(t, "nodev") != NULL;
            cur->dev = !cur->nodev && strstr(t, " dev") != NULL;
            snprintf(cur->cmd, sizeof cur->cmd, "%s", trim(dollar + 3));
            continue;
        }
        char *colon = strchr(t, ':');
        if (!cur || !colon || cur->nex == MAX_EXPECT)
            fail_msg("%s:%d: expected 'out: TEXT', 'err: TEXT', 'any: TEXT' or 'no: TEXT' under a case",
                     path, ln);
        *colon = '\0';
        expect *x = &cur->ex[cur->nex++];
        snprintf(x->where, sizeof x->where, "%s", trim(t));
        snprintf(x->text, sizeof x->text, "%s", trim(colon + 1));
        if (strcmp(x->where, "out") && strcmp(x->where, "err") && strcmp(x->where, "any") &&
            strcmp(x->where, "no"))
            fail_msg("%s:%d: unknown stream '%s'", path, ln, x->where);
    }
    fclose(f);
    return n;
}

static bool device_present(void)
{
    ts_output r = {0};
    ts_shell(&r, false, "'%s' doctor --json", ts_exe());
    cJSON *root = cJSON_Parse(r.out);
    bool present = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "device"), "present"));
    cJSON_Delete(root);
    ts_output_free(&r);
    return present;
}

/* Runs case c; false (after saying why) when it does not hold. */
static bool run_case(const char *file, const tcase *c)
{
    char tmp[CL_PATH_MAX], cmd[LINE_MAX_LEN * 2], want[LINE_MAX_LEN * 2];
    if (!ts_tmpdir(tmp, sizeof tmp, "case"))
        fail_msg("cannot make a temporary folder");
    expand(c->cmd, tmp, ts_exe(), cmd, sizeof cmd);
    ts_output r = {0};
    ts_shell(&r, false,
             "cd '%s' && export CUDALAB_DATA='%s/data' CUDALAB_WORKSPACE='%s/ws' "
             "XDG_DATA_HOME='%s/xdg' HOME='%s' && unset CUDALAB_GRADE_KEY NO_COLOR && %s",
             tmp, tmp, tmp, tmp, tmp, cmd);
    squeeze(r.out);
    squeeze(r.err);
    bool ok = r.status == c->exit_code;
    if (!ok)
        fprintf(stderr, "%s:%d: exit %d, expected %d\n", file, c->line, r.status, c->exit_code);
    for (int i = 0; i < c->nex; i++) {
        const expect *x = &c->ex[i];
        expand(x->text, tmp, NULL, want, sizeof want);
        squeeze(want);
        bool in_out = strstr(r.out, want) != NULL, in_err = strstr(r.err, want) != NULL;
        bool held = strcmp(x->where, "out") == 0   ? in_out
                    : strcmp(x->where, "err") == 0 ? in_err
                    : strcmp(x->where, "any") == 0 ? in_out || in_err
                                                   : !in_out && !in_err;
        if (!held) {
            fprintf(stderr, "%s:%d: %s %s '%s'\n", file, c->line, x->where,
                    strcmp(x->where, "no") == 0 ? "shows" : "lacks", want);
            ok = false;
        }
    }
    if (!ok)
        fprintf(stderr, "  command: %s\n  stdout: %s\n  stderr: %s\n", c->cmd, r.out, r.err);
    ts_output_free(&r);
    ts_rm_rf(tmp);
    return ok;
}

static void test_cases(void **state)
{
    (void)state;
    static tcase cases[512];
    char path[CL_PATH_MAX];
    ts_data_path(path, sizeof path, "cli/cases.txt");
    int n = read_cases(path, cases, 512);
    assert_true(n > 0);
    bool dev = device_present();
    int failed = 0, ran = 0;
    for (int i = 0; i < n; i++) {
        if ((cases[i].nodev && dev) || (cases[i].dev && !dev))
            continue;
        ran++;
        if (!run_case(path, &cases[i]))
            failed++;
    }
    fprintf(stderr, "%d of %d cases ran (%s a CUDA device), %d failed\n", ran, n,
            dev ? "with" : "without", failed);
    assert_int_equal(failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
