/* cmd_progress.c - `cudalab progress [--json] [--reset LAB [--yes]]`: what
 * the learner has reached, lab by lab, from the progress store. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_labs.h"
#include "cli/cli_opts.h"
#include "cli/cli_record.h"
#include "cli/cli_rows.h"
#include "store/store.h"

enum { OPT_RESET = CLI_LONG_ONLY, OPT_YES };

typedef struct progress_args {
    bool json, yes;
    const char *reset;
} progress_args;

static const cli_opt progress_opts[] = {
    {.name = "json", .key = 'j', .help = "print one JSON document instead of text"},
    {.name = "reset", .key = OPT_RESET, .arg = "LAB",
     .help = "forget everything recorded about one lab, after a confirmation",
     .need = "a lab id"},
    {.name = "yes", .key = OPT_YES, .help = "with --reset: do not ask"},
    {.name = NULL},
};

const cli_command cmd_progress_spec = {
    .name = "progress",
    .operands = "",
    .summary = "what you have reached in each lab: milestones, quizzes, attempts, best figures",
    .details = "Read from the progress store in the data folder (--data DIR).  --reset LAB forgets one\n"
               "lab after asking (or at once with --yes); nothing else deletes records.",
    .opts = progress_opts,
    .run = cmd_progress,
};

static int progress_option(cli_ctx *c, void *ud, int key, const char *v)
{
    progress_args *a = ud;
    if (key == 'j')
        a->json = true;
    else if (key == OPT_YES)
        a->yes = true;
    else if (key == OPT_RESET && a->reset)
        return cli_usage_error(c, "progress: --reset takes one lab at a time ('%s', then '%s')",
                               a->reset, v);
    else if (key == OPT_RESET)
        a->reset = v;
    return EXIT_OK;
}

/* What the store holds about one lab. */
typedef struct lab_progress {
    const lab *l;
    store_milestone *ms;
    size_t nms;
    store_quiz *qs;
    size_t nqs;
    store_exercise_summary ex;
    int step;
    bool has_step;
} lab_progress;

static void progress_free(lab_progress *p)
{
    free(p->ms);
    free(p->qs);
}

static bool gather(store *s, const lab *l, lab_progress *p, cl_err *e)
{
    memset(p, 0, sizeof *p);
    p->l = l;
    p->has_step = store_place_get(s, l->id, &p->step, e);
    return store_milestones(s, l->id, &p->ms, &p->nms, e) &&
           store_quizzes(s, l->id, &p->qs, &p->nqs, e) &&
           store_exercise_summary_get(s, l->id, &p->ex, e);
}

static const store_milestone *find_ms(const lab_progress *p, const char *id)
{
    for (size_t i = 0; i < p->nms; i++)
        if (strcmp(p->ms[i].id, id) == 0)
            return &p->ms[i];
    return NULL;
}

static const store_quiz *find_quiz(const lab_progress *p, const char *id)
{
    for (size_t i = 0; i < p->nqs; i++)
        if (strcmp(p->qs[i].id, id) == 0)
            return &p->qs[i];
    return NULL;
}

static void when(double t, char *out, size_t n)
{
    time_t s = (time_t)t;
    struct tm tm;
    localtime_r(&s, &tm);
    strftime(out, n, "%Y-%m-%d %H:%M", &tm);
}

static void print_text(const lab_progress *p)
{
    const lab *l = p->l;
    char at[32];
    size_t reached = 0;
    for (size_t i = 0; i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        const store_quiz *q = m->quiz ? find_quiz(p, m->quiz) : NULL;
        reached += m->quiz ? (q && q->answered_right) : find_ms(p, m->id) != NULL;
    }
    printf("%s: %s\n", l->id, l->title);
    if (p->has_step)
        printf("  left at step %d of %zu\n", p->step + 1, l->nsteps);
    printf("  milestones: %zu of %zu reached\n", reached, l->nmilestones);
    for (size_t i = 0; i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        if (m->quiz) {
            const store_quiz *q = find_quiz(p, m->quiz);
            if (q) {
                when(q->last_at, at, sizeof at);
                printf("    [%s] %s (quiz: %s, %d attempt%s, last %s)\n",
                       q->answered_right ? "x" : " ", m->text,
                       q->answered_right ? "answered right" : "not yet right", q->attempts,
                       q->attempts == 1 ? "" : "s", at);
            } else {
                printf("    [ ] %s (quiz: not answered)\n", m->text);
            }
            continue;
        }
        const store_milestone *got = find_ms(p, m->id);
        if (got) {
            when(got->at, at, sizeof at);
            printf("    [x] %s (%s, %s)\n", m->text, got->shown[0] ? got->shown : "reached", at);
        } else {
            printf("    [ ] %s\n", m->text);
        }
    }
    if (p->ex.runs == 0) {
        if (l->nexercises > 0)
            printf("  your kernel: not run yet\n");
        return;
    }
    when(p->ex.latest_at, at, sizeof at);
    printf("  your kernel: %lld run%s, latest %s\n", (long long)p->ex.runs,
           p->ex.runs == 1 ? "" : "s", at);
    for (size_t k = 0; k < p->ex.nbest; k++) {
        const store_best *b = &p->ex.best[k];
        char pct[32] = "";
        if (b->speedup_cpu > 0)
            snprintf(pct, sizeof pct, ", %.1fx CPU", b->speedup_cpu);
        when(b->at, at, sizeof at);
        printf("    best at %s: %.4g ms%s (%s)\n", b->size, b->median_ms, pct, at);
    }
}

static cJSON *lab_json(const lab_progress *p)
{
    const lab *l = p->l;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", l->id);
    cJSON_AddStringToObject(o, "title", l->title);
    if (p->has_step)
        cJSON_AddNumberToObject(o, "step", p->step);
    else
        cJSON_AddNullToObject(o, "step");
    cJSON *ms = cJSON_AddArrayToObject(o, "milestones");
    for (size_t i = 0; i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        cJSON *mo = cJSON_CreateObject();
        cJSON_AddStringToObject(mo, "id", m->id);
        cJSON_AddStringToObject(mo, "text", m->text);
        cJSON_AddStringToObject(mo, "kind", m->quiz ? "quiz" : "measured");
        const store_milestone *got = m->quiz ? NULL : find_ms(p, m->id);
        const store_quiz *q = m->quiz ? find_quiz(p, m->quiz) : NULL;
        cJSON_AddBoolToObject(mo, "reached", m->quiz ? q && q->answered_right : got != NULL);
        if (got) {
            cJSON_AddStringToObject(mo, "value", got->shown);
            cJSON_AddNumberToObject(mo, "at", got->at);
            cJSON_AddNumberToObject(mo, "run", (double)got->run_id);
        }
        cJSON_AddItemToArray(ms, mo);
    }
    cJSON *qs = cJSON_AddArrayToObject(o, "quizzes");
    for (size_t i = 0; i < p->nqs; i++) {
        cJSON *qo = cJSON_CreateObject();
        cJSON_AddStringToObject(qo, "id", p->qs[i].id);
        cJSON_AddNumberToObject(qo, "attempts", p->qs[i].attempts);
        cJSON_AddBoolToObject(qo, "answered_right", p->qs[i].answered_right);
        cJSON_AddNumberToObject(qo, "first_at", p->qs[i].first_at);
        cJSON_AddNumberToObject(qo, "last_at", p->qs[i].last_at);
        cJSON_AddItemToArray(qs, qo);
    }
    cJSON_AddNumberToObject(o, "attempts", (double)p->ex.runs);
    cJSON *best = cJSON_AddArrayToObject(o, "best");
    for (size_t k = 0; k < p->ex.nbest; k++) {
        const store_best *b = &p->ex.best[k];
        cJSON *bo = cJSON_CreateObject();
        cJSON_AddStringToObject(bo, "size", b->size);
        cJSON_AddNumberToObject(bo, "median_ms", b->median_ms);
        if (b->speedup_cpu > 0)
            cJSON_AddNumberToObject(bo, "speedup_cpu", b->speedup_cpu);
        cJSON_AddNumberToObject(bo, "at", b->at);
        cJSON_AddStringToObject(bo, "kernel_sha256", b->kernel_sha);
        cJSON_AddItemToArray(best, bo);
    }
    return o;
}

/* Asks on the terminal; true for an answer starting with y. */
static bool confirm(const char *lab_id, const char *path)
{
    fprintf(stderr, "Forget everything recorded about lab '%s' in %s? [y/N] ", lab_id, path);
    fflush(stderr);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

static int do_reset(cli_ctx *c, store *s, const progress_args *a, const lab_set *set)
{
    cl_err e = {{0}};
    if (!lab_set_find(set, a->reset))
        return cli_usage_error(c, "progress: no lab called '%s' (see 'cudalab list')", a->reset);
    if (!a->yes && !confirm(a->reset, store_path(s))) {
        fprintf(stderr, "cudalab: nothing was forgotten\n");
        return EXIT_FAIL;
    }
    if (!store_reset_lab(s, a->reset, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        return EXIT_ENV;
    }
    printf("Forgot lab '%s'.\n", a->reset);
    return EXIT_OK;
}

int cmd_progress(cli_ctx *ctx, int argc, char **argv)
{
    progress_args a = {0};
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_progress_spec, argc, argv, progress_option, &a, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first < argc)
        return cli_usage_error(ctx, "progress: unexpected argument '%s'", argv[first]);
    if (a.yes && !a.reset)
        return cli_usage_error(ctx, "progress: --yes goes with --reset LAB");

    lab_set set = {0};
    lab_diags diags = {0};
    store *s = NULL;
    cl_err e = {{0}};
    rc = EXIT_ENV;
    if (!cli_load_labs(ctx, &set, &diags))
        goto done;
    if (!(s = cli_store_open()))
        goto done;
    if (a.reset) {
        rc = do_reset(ctx, s, &a, &set);
        goto done;
    }
    cJSON *root = a.json ? cJSON_CreateObject() : NULL;
    cJSON *labs = root ? cJSON_AddArrayToObject(root, "labs") : NULL;
    if (root)
        cJSON_AddStringToObject(root, "store", store_path(s));
    for (size_t i = 0; i < set.n; i++) {
        lab_progress p;
        if (!gather(s, set.v[i], &p, &e)) {
            fprintf(stderr, "cudalab: %s\n", e.msg);
            progress_free(&p);
            cJSON_Delete(root);
            goto done;
        }
        if (root) {
            cJSON_AddItemToArray(labs, lab_json(&p));
        } else {
            if (i)
                putchar('\n');
            print_text(&p);
        }
        progress_free(&p);
    }
    if (root)
        cli_print_json(root);
    rc = EXIT_OK;
done:
    store_close(s);
    lab_set_free(&set);
    lab_diags_free(&diags);
    return rc;
}
