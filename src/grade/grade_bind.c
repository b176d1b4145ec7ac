/* grade_bind.c - what binds a report to one submission: the learner, the
 * assignment, the machine and the time (grade/grade.h); and the report's
 * end, graded or not. */
#include "grade/grade.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/escape.h"
#include "core/rng.h"

bool grade_assignment_check(const char *id, cl_err *err)
{
    size_t n = strlen(id);
    if (n == 0)
        return err_set(err, "the assignment id is empty");
    if (n > GRADE_ASSIGNMENT_MAX)
        return err_set(err, "the assignment id is %zu characters long; at most %d", n,
                       GRADE_ASSIGNMENT_MAX);
    size_t ok = strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
    if (ok < n) {
        char shown[16];
        unsigned char c = (unsigned char)id[ok];
        if (c >= 0x20 && c < 0x7F)
            snprintf(shown, sizeof shown, "'%c'", c);
        else
            snprintf(shown, sizeof shown, "byte 0x%02X", c);
        return err_set(err, "the assignment id may hold letters, digits, '.', '_' and '-' "
                          "only, not %s (at character %zu)",
                       shown, ok + 1);
    }
    return true;
}

/* The learner's name: given, else the owner of the workspace, else $USER. */
static void learner_name(const grade_opts *o, const char *ws, char *out, size_t n)
{
    struct stat st;
    struct passwd *pw;
    const char *name = getenv("USER") ? getenv("USER") : "unknown";
    if (o->learner && o->learner[0])
        name = o->learner;
    else if (ws[0] && stat(ws, &st) == 0 && (pw = getpwuid(st.st_uid)) != NULL)
        name = pw->pw_name;
    escape_line(out, n, name);
}

bool grade_report_start(grade_report *out, const grade_opts *opts, cl_err *err)
{
    memset(out, 0, sizeof *out);
    bool ok = true;
    if (opts->workspace)
        snprintf(out->workspace, sizeof out->workspace, "%s", opts->workspace);
    else
        ok = paths_workspace(out->workspace, sizeof out->workspace, err);
    learner_name(opts, ok ? out->workspace : "", out->learner, sizeof out->learner);
    snprintf(out->assignment, sizeof out->assignment, "%s",
             opts->assignment ? opts->assignment : "");
    char host[GRADE_HOST_MAX] = "";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "unknown");
    escape_line(out->hostname, sizeof out->hostname, host);
    snprintf(out->version, sizeof out->version, "%s", CUDALAB_VERSION);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out->created, sizeof out->created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    out->seed = opts->seed ? opts->seed : rng_fresh_seed();
    out->quizzes = opts->quizzes;
    return ok;
}

void grade_report_not_graded(grade_report *report, const char *why)
{
    grade_report kept = *report;
    kept.labs = NULL;
    kept.nlabs = 0;
    grade_report_free(report);
    *report = kept;
    report->score = 0;
    report->max_score = 0;
    escape_line(report->error, sizeof report->error, why[0] ? why : "grading could not happen");
}

void grade_report_free(grade_report *report)
{
    for (size_t i = 0; i < report->nlabs; i++) {
        free(report->labs[i].kernel_text);
        free(report->labs[i].launcher_text);
        free(report->labs[i].rows);
        free(report->labs[i].ms);
    }
    free(report->labs);
    memset(report, 0, sizeof *report);
}
