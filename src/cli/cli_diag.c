#include "cli/cli_diag.h"

#include <string.h>

#include "catalog/problem_spec.h"
#include "supervise/diag_row.h"

#define WRAP 78

bool cli_diag_wanted(const run_result *result)
{
    return result->kind == RK_EXERCISE && result->status != RS_CORRECT &&
           result->status != RS_NO_DEVICE;
}

/* Writes text word-wrapped: lines of at most WRAP columns after indent. */
static void wrapped(FILE *f, const char *indent, const char *text)
{
    size_t room = WRAP > strlen(indent) + 20 ? WRAP - strlen(indent) : 40;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, "\n");
        size_t cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = room;
        }
        if (cut > 0)
            fprintf(f, "%s%.*s\n", indent, (int)cut, p);
        p += cut;
        if (*p == '\n')
            p++;
    }
}

void cli_diag_print(FILE *out, const diagnosis *diag, const char *indent)
{
    fprintf(out, "%s%s%s%s%s\n", indent, diag->title, diag->where[0] ? " (" : "", diag->where,
            diag->where[0] ? ")" : "");
    char deeper[32];
    snprintf(deeper, sizeof deeper, "%s  ", indent);
    wrapped(out, deeper, diag->explanation);
    if (diag->next_step[0]) {
        char next[sizeof diag->next_step + 16];
        snprintf(next, sizeof next, "Next step: %s", diag->next_step);
        wrapped(out, deeper, next);
    }
}

cJSON *cli_diag_json(const diagnosis *diag)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "cause", diag_cause_name(diag->cause));
    cJSON_AddStringToObject(o, "title", diag->title);
    cJSON_AddStringToObject(o, "where", diag->where);
    cJSON_AddStringToObject(o, "explanation", diag->explanation);
    cJSON_AddStringToObject(o, "next_step", diag->next_step);
    return o;
}

void cli_diag_annotate(cJSON *doc, const run_result *rows, size_t nrows, const run_fault *fault,
                       const problem_spec *spec, double time_limit_s, const char *output)
{
    diagnosis d;
    cJSON *res = cJSON_GetObjectItemCaseSensitive(doc, "results");
    for (size_t i = 0; i < nrows; i++) {
        if (!cli_diag_wanted(&rows[i]))
            continue;
        diag_row(&rows[i], NULL, spec, time_limit_s, output, &d);
        cJSON *o = cJSON_GetArrayItem(res, (int)i);
        if (o)
            cJSON_AddItemToObject(o, "diagnosis", cli_diag_json(&d));
    }
    cJSON *f = cJSON_GetObjectItemCaseSensitive(doc, "fault");
    if (fault && cJSON_IsObject(f)) {
        diag_row(NULL, fault, spec, time_limit_s, output, &d);
        cJSON_AddItemToObject(f, "diagnosis", cli_diag_json(&d));
    }
}
