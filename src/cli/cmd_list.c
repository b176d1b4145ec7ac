/* cmd_list.c - `cudalab list [--json]`. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "cli/cli_rows.h"
#include "cli/cli_labs.h"
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

static const cli_opt list_opts[] = {
    {.name = "json", .key = 'j', .help = "print one JSON document instead of a table"},
    {.name = NULL},
};

const cli_command cmd_list_spec = {
    .name = "list",
    .operands = "",
    .summary = "list the labs: id, title, order, steps, variants, milestones, exercises",
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
    if (first < argc)
        return cli_usage_error(ctx, "list: unexpected argument '%s'", argv[first]);
    lab_set set = {0};
    lab_diags diags = {0};
    if (!cli_load_labs(ctx, &set, &diags)) {
        lab_diags_free(&diags);
        return EXIT_ENV;
    }
    if (json) {
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
        printf("%-3s %-14s %-34s %5s %8s %10s %9s\n", "#", "id", "title", "steps", "variants",
               "milestones", "exercises");
        for (size_t i = 0; i < set.n; i++) {
            const lab *l = set.v[i];
            char title[34 * 4 + 1];
            printf("%-3d %-14s %s %5zu %8zu %10zu %9zu\n", l->order, l->id,
                   strfmt_cell(title, sizeof title, l->title, 34), l->nsteps, l->nvariants,
                   l->nmilestones, l->nexercises);
        }
    }
    lab_set_free(&set);
    lab_diags_free(&diags);
    return EXIT_OK;
}
