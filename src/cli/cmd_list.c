/* cmd_list.c - `cudalab list [LAB] [--json]`. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_rows.h"
#include "cli/cli_labs.h"
#include "catalog/experiments_list.h"
#include "core/strfmt.h"

static cJSON *lab_to_json(const lab *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", l->id);
    cJSON_AddStringToObject(o, "title", l->title);
    cJSON_AddNumberToObject(o, "order", l->order);
    cJSON_AddStringToObject(o, "path", l->path);
    if (l->problem)
        cJSON_AddStringToObject(o, "problem", l->problem);
    else
        cJSON_AddNullToObject(o, "problem");
    if (l->library)
        cJSON_AddStringToObject(o, "library", l->library);
    else
        cJSON_AddNullToObject(o, "library");
    cJSON *sizes = cJSON_AddArrayToObject(o, "sizes");
    for (size_t i = 0; i < l->nsizes; i++)
        cJSON_AddItemToArray(sizes, cJSON_CreateString(l->sizes[i]));
    cJSON *steps = cJSON_AddArrayToObject(o, "steps");
    for (size_t i = 0; i < l->nsteps; i++)
        cJSON_AddItemToArray(steps, cJSON_CreateString(l->steps[i].title));
    cJSON *vars = cJSON_AddArrayToObject(o, "variants");
    for (size_t i = 0; i < l->nvariants; i++) {
        const lab_variant *v = &l->variants[i];
        cJSON *vo = cJSON_CreateObject();
        cJSON_AddStringToObject(vo, "id", v->id);
        cJSON_AddStringToObject(vo, "title", v->title ? v->title : v->id);
        cJSON_AddStringToObject(vo, "kernel", v->kernel ? v->kernel : "");
        cJSON_AddStringToObject(vo, "why", v->why ? v->why : "");
        cJSON_AddItemToArray(vars, vo);
    }
    cJSON *exs = cJSON_AddArrayToObject(o, "exercises");
    for (size_t i = 0; i < l->nexercises; i++) {
        const lab_exercise *x = &l->exercises[i];
        cJSON *xo = cJSON_CreateObject();
        cJSON_AddStringToObject(xo, "id", x->id);
        cJSON_AddStringToObject(xo, "title", x->title ? x->title : "");
        cJSON_AddStringToObject(xo, "problem", x->problem ? x->problem : "");
        cJSON *xs = cJSON_AddArrayToObject(xo, "sizes");
        for (size_t k = 0; k < x->nsizes; k++)
            cJSON_AddItemToArray(xs, cJSON_CreateString(x->sizes[k]));
        cJSON *xv = cJSON_AddArrayToObject(xo, "variants");
        for (size_t k = 0; k < x->nvariants; k++)
            cJSON_AddItemToArray(xv, cJSON_CreateString(x->variants[k].id));
        cJSON_AddItemToArray(exs, xo);
    }
    cJSON *ms = cJSON_AddArrayToObject(o, "milestones");
    for (size_t i = 0; i < l->nmilestones; i++) {
        const lab_milestone *m = &l->milestones[i];
        cJSON *mo = cJSON_CreateObject();
        cJSON_AddStringToObject(mo, "id", m->id);
        cJSON_AddStringToObject(mo, "text", m->text);
        cJSON_AddStringToObject(mo, "kind", m->quiz ? "quiz" : "measured");
        if (m->target)
            cJSON_AddStringToObject(mo, "target", m->target);
        if (m->exercise)
            cJSON_AddStringToObject(mo, "exercise", m->exercise);
        cJSON_AddItemToArray(ms, mo);
    }
    return o;
}

/* Characters of a UTF-8 text (its columns, for cudalab's own text). */
static int text_cols(const char *t)
{
    int n = 0;
    for (; *t; t++)
        n += ((unsigned char)*t & 0xC0) != 0x80;
    return n;
}

/* `list LAB`: everything a learner may type about one lab, names whole. */
static void print_lab(const lab *l)
{
    printf("%s: %s\n", l->id, l->title);
    if (l->nsizes) {
        printf("sizes (--size):");
        for (size_t i = 0; i < l->nsizes; i++)
            printf(" %s", l->sizes[i]);
        putchar('\n');
    }
    bool experiments = !l->problem || experiments_problem(l->problem);
    printf("%s (--variant ID):\n", experiments ? "experiments" : "variants");
    for (size_t i = 0; i < l->nvariants; i++)
        printf("  %-16s %s\n", l->variants[i].id,
               l->variants[i].title ? l->variants[i].title : "");
    if (!experiments) {
        printf("  %-16s %s\n", "cpu", "the CPU on one thread (cpu_mt: on every core)");
        if (l->library)
            printf("  %-16s %s\n", l->library, "the vendor library's row");
    }
    if (l->nexercises) {
        printf("exercises (--exercise=ID; --variant exercise for the lab's own):\n");
        for (size_t i = 0; i < l->nexercises; i++) {
            const lab_exercise *x = &l->exercises[i];
            printf("  %-16s %s\n", x->id[0] ? x->id : "(the lab's own)",
                   x->title && x->title[0] ? x->title : x->kernel ? x->kernel : "");
            if (x->id[0] && x->nsizes) {
                printf("  %-16s sizes:", "");
                for (size_t k = 0; k < x->nsizes; k++)
                    printf(" %s", x->sizes[k]);
                putchar('\n');
            }
            if (x->nvariants) {
                printf("  %-16s variants:", "");
                for (size_t k = 0; k < x->nvariants; k++)
                    printf(" %s", x->variants[k].id);
                if (x->library)
                    printf(" cpu %s", x->library);
                putchar('\n');
            }
        }
    }
    if (l->nmilestones) {
        printf("milestones:\n");
        for (size_t i = 0; i < l->nmilestones; i++) {
            const lab_milestone *m = &l->milestones[i];
            printf("  %-16s %s%s%s%s\n", m->id, m->text, m->quiz ? " (quiz)" : "",
                   m->target ? "; target: " : "", m->target ? m->target : "");
        }
    }
}

static const cli_opt list_opts[] = {
    {.name = "json", .key = 'j', .help = "print one JSON document instead of a table"},
    {.name = NULL},
};

const cli_command cmd_list_spec = {
    .name = "list",
    .operands = "[LAB]",
    .summary = "list the labs: id, title, order, steps, variants, milestones, exercises; "
               "with LAB, that lab's sizes, variants, exercises and milestones by name",
    .opts = list_opts,
    .run = cmd_list,
};

int cmd_list(cli_ctx *ctx, int argc, char **argv)
{
    bool json = false;
    int first = 0;
    int rc = cli_opts_parse(ctx, &cmd_list_spec, argc, argv, cli_opts_set_flag, &json, &first);
    if (rc != EXIT_OK)
        return rc == CLI_HELPED ? EXIT_OK : rc;
    if (first + 1 < argc)
        return cli_usage_error(ctx, "list: unexpected argument '%s'", argv[first + 1]);
    const char *one = first < argc ? argv[first] : NULL;
    lab_set set = {0};
    lab_diags diags = {0};
    if (!cli_load_labs(ctx, &set, &diags)) {
        lab_diags_free(&diags);
        return EXIT_ENV;
    }
    if (one) {
        const lab *l = lab_set_find(&set, one);
        if (!l) {
            lab_set_free(&set);
            lab_diags_free(&diags);
            return cli_usage_error(ctx, "list: no lab called '%s'", one);
        }
        if (json) {
            cJSON *root = cJSON_CreateObject();
            cJSON_AddItemToObject(root, "lab", lab_to_json(l));
            cli_print_json(root);
        } else {
            print_lab(l);
        }
    } else if (json) {
        cJSON *root = cJSON_CreateObject();
        cJSON *arr = cJSON_AddArrayToObject(root, "labs");
        for (size_t i = 0; i < set.n; i++)
            cJSON_AddItemToArray(arr, lab_to_json(set.v[i]));
        cJSON *probs = cJSON_AddArrayToObject(root, "problems");
        for (size_t i = 0; i < diags.n; i++) {
            char line[1200];
            snprintf(line, sizeof line, "%s:%d: %s", diags.v[i].file, diags.v[i].line,
                     diags.v[i].msg);
            cJSON_AddItemToArray(probs, cJSON_CreateString(line));
        }
        cli_print_json(root);
    } else {
        /* titles whole: the column as wide as the widest */
        int w = 34;
        for (size_t i = 0; i < set.n; i++)
            if (text_cols(set.v[i]->title) > w)
                w = text_cols(set.v[i]->title);
        w = w > 200 ? 200 : w;
        char head[200 * 4 + 1];
        printf("%-3s %-14s %s %5s %8s %10s %9s\n", "#", "id",
               strfmt_cell(head, sizeof head, "title", w), "steps", "variants", "milestones",
               "exercises");
        for (size_t i = 0; i < set.n; i++) {
            const lab *l = set.v[i];
            char title[200 * 4 + 1];
            printf("%-3d %-14s %s %5zu %8zu %10zu %9zu\n", l->order, l->id,
                   strfmt_cell(title, sizeof title, l->title, w), l->nsteps, l->nvariants,
                   l->nmilestones, l->nexercises);
        }

    }
    lab_set_free(&set);
    lab_diags_free(&diags);
    return EXIT_OK;
}
