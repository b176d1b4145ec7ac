/* cli_sanitize.c - the --sanitize mode of `cudalab run` (cli_sanitize.h). */
#include "cli/cli_sanitize.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_record.h"
#include "cli/cli_rows.h"
#include "lab/labproblem.h"

static cJSON *finding_json(const sanitize_finding *f)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    char text[1024];
    sanitize_finding_format(f, text, sizeof text);
    cJSON_AddStringToObject(o, "kind", sanitize_kind_name(f->kind));
    cJSON_AddBoolToObject(o, "warning", f->warning);
    cJSON_AddStringToObject(o, "space", f->space);
    cJSON_AddStringToObject(o, "hazard", f->hazard);
    cJSON_AddStringToObject(o, "kernel", f->kernel);
    cJSON_AddStringToObject(o, "file", f->file);
    cJSON_AddNumberToObject(o, "line", f->line);
    if (f->file2[0]) {
        cJSON_AddStringToObject(o, "file2", f->file2);
        cJSON_AddNumberToObject(o, "line2", f->line2);
    }
    if (f->has_thread)
        cJSON_AddItemToObject(o, "thread", cJSON_CreateIntArray(f->thread, 3));
    if (f->has_block)
        cJSON_AddItemToObject(o, "block", cJSON_CreateIntArray(f->block, 3));
    if (f->size > 0)
        cJSON_AddNumberToObject(o, "size", f->size);
    if (f->has_address) {
        char addr[32];
        snprintf(addr, sizeof addr, "0x%" PRIx64, f->address);
        cJSON_AddStringToObject(o, "address", addr);
    }
    if (f->hazards > 0)
        cJSON_AddNumberToObject(o, "hazards", (double)f->hazards);
    cJSON_AddNumberToObject(o, "count", f->count);
    cJSON_AddStringToObject(o, "text", text);
    return o;
}

static void print_sanitize_json(const lab *l, const sanitize_result *res)
{
    cJSON *root = record_doc(l->id, res->have_dev ? &res->dev : NULL, &res->row,
                               res->have_row ? 1 : 0, res->faulted ? &res->fault : NULL);
    if (!root)
        return;
    cJSON *san = cJSON_AddObjectToObject(root, "sanitizer");
    if (san) {
        cJSON_AddStringToObject(san, "tool", res->tool_path);
        cJSON_AddStringToObject(san, "size", res->size);
        cJSON_AddNumberToObject(san, "errors", res->report.errors);
        cJSON_AddNumberToObject(san, "consequences", res->report.consequences);
        cJSON *arr = cJSON_AddArrayToObject(san, "findings");
        for (size_t i = 0; arr && i < res->report.n; i++) {
            cJSON *f = finding_json(&res->report.findings[i]);
            if (f)
                cJSON_AddItemToArray(arr, f);
        }
    }
    cli_print_json(root);
}

static void print_sanitize_text(const lab *l, sanitize_tool t, const sanitize_result *res)
{
    const char *tool = sanitize_tool_name(t);
    printf("compute-sanitizer %s: your kernel for lab %s at size %s, one checked run\n", tool,
           l->id, res->size);
    if (res->have_dev && !res->dev.present)
        printf("%s\n", res->dev.reason);
    /* What the tool found leads: the run's error usually follows from it. */
    bool own = res->report.n > 0 && res->report.findings[0].kind != SAN_CUDA_ERROR &&
               res->report.findings[0].kind != SAN_LEAK &&
               res->report.findings[0].kind != SAN_UNUSED;
    if (res->report.n == 0) {
        printf("%s found no problems%s (it looks for %s only)\n", tool,
               res->have_row && res->row.status == RS_ERROR ? " (but the kernel did not run)" : "",
               sanitize_tool_finds(t));
    } else {
        printf("%s found %zu problem%s:\n", tool, res->report.n, res->report.n == 1 ? "" : "s");
        for (size_t i = 0; i < res->report.n; i++) {
            char text[1024];
            sanitize_finding_format(&res->report.findings[i], text, sizeof text);
            printf("  %zu. %s\n", i + 1, text);
        }
    }
    if (res->have_row) {
        bool follows = own && res->row.status == RS_ERROR;
        printf("result: %s%s%s%s\n", result_status_name(res->row.status),
               res->row.message[0] ? ": " : "", res->row.message,
               follows ? " (this follows from problem 1)" : "");
    }
    if (res->faulted)
        printf("fault (%s): %s%s\n", res->fault.cause, res->fault.message,
               own ? " (this follows from problem 1)" : "");
    if (res->report.errors >= 0)
        printf("the tool counted %d error%s\n", res->report.errors,
               res->report.errors == 1 ? "" : "s");
    if (!res->have_row && !res->have_dev && res->output && res->output[0])
        fprintf(stderr, "the tool printed:\n%s", res->output);
    fflush(stdout);
}

int cli_run_sanitize(cli_ctx *ctx, const lab *the_lab, const run_request *req,
                     sanitize_tool san_tool, bool json)
{
    const char *sizes[RUN_MAX_SIZES];
    for (int i = 0; i < req->nsizes; i++)
        sizes[i] = req->sizes[i];
    double limit = ctx->time_limit_s > 0 ? ctx->time_limit_s : 0.0;
    sanitize_opts o = {
        .tool = san_tool,
        .problem = req->problem,
        .spec = lab_problem_spec(the_lab, req->problem),
        .lab = the_lab->id,
        .lab_file = req->lab_file[0] ? req->lab_file : NULL,
        .sizes = sizes,
        .nsizes = req->nsizes,
        .kernel = req->exercise_kernel,
        .launcher = req->exercise_launcher,
        .seed = req->seed,
        .time_limit_s = limit,
    };
    const char *tool = sanitize_tool_name(san_tool);
    char found[1024];
    cl_err e = {{0}};
    if (!sanitize_tool_path(NULL, found, sizeof found, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);   /* before a run is announced */
        return EXIT_ENV;
    }
    if (!json)
        fprintf(stderr, "running your kernel under compute-sanitizer %s (this is slow)...\n",
                tool);
    sanitize_result res;
    if (!sanitize_run(&o, &res, &e)) {
        fprintf(stderr, "cudalab: %s\n", e.msg);
        sanitize_result_free(&res);
        return EXIT_ENV;
    }
    if (json)
        print_sanitize_json(the_lab, &res);
    else
        print_sanitize_text(the_lab, san_tool, &res);
    int rc = EXIT_OK;
    if (res.have_dev && !res.dev.present)
        rc = EXIT_ENV;
    else if (res.faulted || !res.have_row || res.row.status != RS_CORRECT || res.report.n > 0)
        rc = EXIT_FAIL;
    sanitize_result_free(&res);
    return rc;
}

