/* cmd_complete.c - `cudalab __complete WORD...`: candidates for the shell.
 *
 * The shell scripts (assets/completion/) pass the words after `cudalab`, the
 * last one being the word under the cursor (possibly empty).  The answer is
 * one candidate a line, taken from the command table, the option tables and
 * the labs themselves, so it follows every change to them.  A line ":files"
 * or ":dirs" asks the shell to complete file or folder names instead.
 * Nothing goes to stderr and the exit code is 0: completion never fails
 * loudly. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "catalog/experiments_list.h"
#include "cli/cli_commands.h"
#include "lab/labmodel.h"

#define MAX_OPERANDS 16

typedef struct compl {
    const char *cur;                  /* the word being completed */
    const char *prefix;               /* printed before each value ("--size=") */
    const cli_command *cmd;           /* NULL: still at the command word */
    bool lost;                        /* the command word names no command */
    const char *operands[MAX_OPERANDS];
    int nops;
    const char *exercise;             /* --exercise=ID among the words, or NULL */
    const char *lab_dirs[CLI_MAX_LAB_DIRS];
    size_t nlab_dirs;
    lab_set labs;
    bool labs_loaded;
    const char *home;
} compl;

static void offer(const compl *k, const char *cand)
{
    if (strncmp(cand, k->cur, strlen(k->cur)) == 0)
        printf("%s%s\n", k->prefix, cand);
}

/* The option of cmd (or a global one) called name (without "--"), or the
 * short option letter. */
static const cli_opt *find_opt(const cli_command *cmd, const char *name, size_t len, int letter)
{
    const cli_opt *lists[2] = {cmd ? cmd->opts : NULL, cli_opts_global_table()};
    for (int l = 0; l < 2; l++)
        for (const cli_opt *o = lists[l]; o && o->name; o++) {
            if (letter && o->key == letter)
                return o;
            if (!letter && strlen(o->name) == len && strncmp(o->name, name, len) == 0)
                return o;
        }
    return NULL;
}

static const lab_set *labs_of(compl *k)
{
    if (!k->labs_loaded && k->home[0]) {
        lab_diags d = {0};
        cl_err e;
        lab_set_load(&k->labs, k->lab_dirs, k->nlab_dirs, k->home, &d, &e);
        lab_diags_free(&d);
    }
    k->labs_loaded = true;
    return &k->labs;
}

static const lab *operand_lab(compl *k)
{
    const char *id = k->nops > 0 ? k->operands[0] : NULL;
    if (k->cmd && strcmp(k->cmd->name, "report") == 0)
        id = EXPERIMENTS_PROBLEM;
    return id ? lab_set_find(labs_of(k), id) : NULL;
}

/* Lab ids: with_problem keeps labs that run kernels, with_exercise labs
 * that have an exercise. */
static void offer_labs(compl *k, bool with_problem, bool with_exercise)
{
    const lab_set *s = labs_of(k);
    for (size_t i = 0; i < s->n; i++)
        if ((!with_problem || s->v[i]->problem) && (!with_exercise || s->v[i]->nexercises > 0))
            offer(k, s->v[i]->id);
}

static void offer_words(const compl *k, const char *const *w)
{
    for (; *w; w++)
        offer(k, *w);
}

/* Whether w is one of the comma-separated items of list[0..n). */
static bool in_list(const char *list, size_t n, const char *w)
{
    size_t len = strlen(w);
    for (size_t at = 0; at < n;) {
        const char *end = memchr(list + at, ',', n - at);
        size_t item = end ? (size_t)(end - (list + at)) : n - at;
        if (item == len && strncmp(list + at, w, len) == 0)
            return true;
        at += item + 1;
    }
    return false;
}

/* A comma-separated list (grade --format json,junit): the words not yet in
 * it, after what is already written. */
static void offer_list(compl *k, const char *const *w)
{
    const char *comma = strrchr(k->cur, ',');
    if (!comma) {
        offer_words(k, w);
        return;
    }
    size_t written = (size_t)(comma + 1 - k->cur);
    const char *tail = comma + 1;
    for (; *w; w++)
        if (!in_list(k->cur, written, *w) && strncmp(*w, tail, strlen(tail)) == 0)
            printf("%s%.*s%s\n", k->prefix, (int)written, k->cur, *w);
}

/* The values option o of the current command takes. */
static void offer_values(compl *k, const cli_opt *o)
{
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck", "initcheck", NULL};
    static const char *const class_formats[] = {"csv", "md", "html", NULL};
    static const char *const grade_formats[] = {"json", "gradescope", "junit", "csv", NULL};
    static const char *const sorts[] = {"learner", "score", "time", NULL};
    const char *cmd = k->cmd ? k->cmd->name : "";
    const char *n = o->name;
    if (o->arg && strcmp(o->arg, "DIR") == 0) {
        puts(":dirs");
    } else if (o->arg && strcmp(o->arg, "FILE") == 0) {
        puts(":files");
    } else if (strcmp(n, "variant") == 0) {
        const lab *l = operand_lab(k);
        for (size_t i = 0; l && i < l->nvariants; i++)
            offer(k, l->variants[i].id);
        if (l && l->nexercises > 0)
            offer(k, "exercise");
        if (l && l->problem && strcmp(l->problem, EXPERIMENTS_PROBLEM) != 0) {
            offer(k, "cpu");
            if (l->library && strcmp(l->library, "copy") != 0)
                offer(k, l->library);
        }
    } else if (strcmp(n, "size") == 0) {
        const lab *l = operand_lab(k);
        const lab_exercise *x = l && k->exercise ? lab_exercise_find(l, k->exercise) : NULL;
        char *const *sizes = x ? x->sizes : l ? l->sizes : NULL;
        size_t nsizes = x ? x->nsizes : l ? l->nsizes : 0;
        for (size_t i = 0; i < nsizes; i++)
            offer(k, sizes[i]);
    } else if (strcmp(n, "exercise") == 0) {
        const lab *l = operand_lab(k);
        for (size_t i = 0; l && i < l->nexercises; i++)
            if (l->exercises[i].id[0])
                offer(k, l->exercises[i].id);
    } else if (strcmp(n, "lab") == 0 || strcmp(n, "remove-backups") == 0) {
        offer_labs(k, false, true);
    } else if (strcmp(n, "reset") == 0) {
        offer_labs(k, false, false);
    } else if (strcmp(n, "sanitize") == 0) {
        offer_words(k, tools);
    } else if (strcmp(n, "format") == 0 && strcmp(cmd, "grade") == 0) {
        offer_list(k, grade_formats);
    } else if (strcmp(n, "format") == 0) {
        offer_words(k, class_formats);
    } else if (strcmp(n, "sort") == 0) {
        offer_words(k, sorts);
    }
}

static void offer_options(const compl *k)
{
    const cli_opt *lists[2] = {k->cmd ? k->cmd->opts : NULL, cli_opts_global_table()};
    char name[80];
    for (int l = 0; l < 2; l++)
        for (const cli_opt *o = lists[l]; o && o->name; o++) {
            snprintf(name, sizeof name, "--%s", o->name);
            offer(k, name);
        }
    offer(k, "--help");
    if (!k->cmd)
        offer(k, "--version");
}

static void offer_commands(const compl *k)
{
    size_t n;
    const cli_command *const *cmds = cli_commands(&n);
    for (size_t i = 0; i < n; i++)
        offer(k, cmds[i]->name);
}

static void offer_operands(compl *k)
{
    const char *cmd = k->cmd->name;
    if ((strcmp(cmd, "run") == 0 || strcmp(cmd, "list") == 0) && k->nops == 0) {
        offer_labs(k, true, false);
    } else if (strcmp(cmd, "report") == 0 && k->nops == 0) {
        offer(k, EXPERIMENTS_PROBLEM);
    } else if (strcmp(cmd, "profile") == 0) {
        size_t n;
        const char *const *ids = experiments_ids(&n);
        for (size_t i = 0; i < n; i++)
            offer(k, ids[i]);
    } else if (strcmp(cmd, "help") == 0 && k->nops == 0) {
        offer_commands(k);
    } else if (strcmp(cmd, "check") == 0 || strcmp(cmd, "verify") == 0) {
        puts(":files");
    } else if (strcmp(cmd, "class") == 0 && k->nops == 0) {
        puts(":dirs");
    }
}

/* Reads the words before the current one: the command, its operands,
 * --labs folders; returns the option whose value the current word is, or
 * NULL. */
static const cli_opt *scan(compl *k, char **w, int n)
{
    bool dashdash = false;
    for (int i = 0; i < n; i++) {
        const char *s = w[i];
        if (!dashdash && s[0] == '-' && s[1]) {
            if (strcmp(s, "--") == 0) {
                dashdash = k->cmd != NULL;
                continue;
            }
            bool is_long = s[1] == '-';
            const char *eq = is_long ? strchr(s, '=') : NULL;
            const char *name = s + (is_long ? 2 : 1);
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const cli_opt *o = find_opt(k->cmd, name, len, is_long ? 0 : s[1]);
            if (!o || !o->arg)
                continue;
            if (o->arg[0] == '[') {       /* an optional value: only after '=' */
                if (eq && strcmp(o->name, "exercise") == 0)
                    k->exercise = eq + 1;
                continue;
            }
            const char *value = eq ? eq + 1 : (!is_long && s[2]) ? s + 2 : NULL;
            if (!value) {
                if (i + 1 == n)
                    return o;
                value = w[++i];
            }
            if (strcmp(o->name, "labs") == 0 && k->nlab_dirs < CLI_MAX_LAB_DIRS)
                k->lab_dirs[k->nlab_dirs++] = value;
        } else if (!k->cmd) {
            /* any command main.c dispatches: the listed ones and this one */
            k->cmd = strcmp(s, cmd_complete_spec.name) == 0 ? &cmd_complete_spec
                                                            : cli_command_listed(s);
            if (!k->cmd) {
                k->lost = true;
                return NULL;
            }
        } else if (k->nops < MAX_OPERANDS) {
            k->operands[k->nops++] = s;
        }
    }
    return NULL;
}

const cli_command cmd_complete_spec = {
    .name = "__complete",
    .operands = "WORD...",
    .summary = "completion candidates for the shell (used by the scripts)",
    .run = cmd_complete,
};

int cmd_complete(cli_ctx *ctx, int argc, char **argv)
{
    static compl k;
    memset(&k, 0, sizeof k);
    k.home = ctx->home;
    k.prefix = "";
    for (size_t i = 0; i < ctx->nlab_dirs && k.nlab_dirs < CLI_MAX_LAB_DIRS; i++)
        k.lab_dirs[k.nlab_dirs++] = ctx->lab_dirs[i];
    int n = argc - 1;
    char **w = argv + 1;
    k.cur = n > 0 ? w[n - 1] : "";
    const cli_opt *pending = scan(&k, w, n > 0 ? n - 1 : 0);
    if (k.lost) {
        /* nothing to offer after a word that is not a command */
    } else if (pending) {
        offer_values(&k, pending);
    } else if (strncmp(k.cur, "--", 2) == 0 && strchr(k.cur, '=')) {
        const char *eq = strchr(k.cur, '=');
        const cli_opt *o = find_opt(k.cmd, k.cur + 2, (size_t)(eq - k.cur - 2), 0);
        char prefix[80];
        snprintf(prefix, sizeof prefix, "%.*s", (int)(eq + 1 - k.cur), k.cur);
        k.prefix = prefix;
        k.cur = eq + 1;
        if (o && o->arg)
            offer_values(&k, o);
    } else if (k.cur[0] == '-') {
        offer_options(&k);
    } else if (!k.cmd) {
        offer_commands(&k);
    } else {
        offer_operands(&k);
    }
    lab_set_free(&k.labs);
    return EXIT_OK;
}
