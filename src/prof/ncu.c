#include "prof/ncu.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/grow.h"
#include "core/spawn.h"
#include "core/strbuf.h"
#include "core/strfmt.h"
#include "core/which.h"

#define NCU_OUTPUT_MAX (64u << 20)

/* ---- CSV ---------------------------------------------------------------- */

typedef struct csv_row {
    char **f;
    size_t n, cap;
} csv_row;

static void row_clear(csv_row *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->f[i]);
    r->n = 0;
}

static void row_free(csv_row *r)
{
    row_clear(r);
    free(r->f);
    memset(r, 0, sizeof *r);
}

static bool row_push(csv_row *r, const char *s, size_t len)
{
    if (!grow_one((void **)&r->f, &r->cap, r->n, sizeof *r->f, 32))
        return false;
    char *c = malloc(len + 1);
    if (!c)
        return false;
    memcpy(c, s, len);
    c[len] = '\0';
    r->f[r->n++] = c;
    return true;
}

/* Reads one CSV record starting at *p (quoted fields with "" escapes,
 * commas and newlines inside quotes) and moves *p past its line end.
 * false when out of memory or at the end of the text. */
static bool csv_read(const char **p, csv_row *r)
{
    row_clear(r);
    const char *s = *p;
    if (!*s)
        return false;
    strbuf field = STRBUF_INIT;
    bool ok = true;
    for (;;) {
        strbuf_clear(&field);
        if (*s == '"') {
            s++;
            while (*s) {
                if (*s == '"' && s[1] == '"') {
                    strbuf_add(&field, "\"", 1);
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    strbuf_add(&field, s++, 1);
                }
            }
            while (*s && *s != ',' && *s != '\n' && *s != '\r')
                s++;
        } else {
            size_t n = strcspn(s, ",\r\n");
            strbuf_add(&field, s, n);
            s += n;
        }
        if (field.failed || !row_push(r, strbuf_text(&field), field.len)) {
            ok = false;
            break;
        }
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '\r')
            s++;
        if (*s == '\n')
            s++;
        break;
    }
    strbuf_free(&field);
    *p = s;
    return ok;
}

static const char *const fixed_columns[] = {
    "ID",         "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
    "Stream",     "Block Size", "Grid Size",    "Device",    "CC",
};

static bool is_fixed(const char *name)
{
    for (size_t i = 0; i < sizeof fixed_columns / sizeof fixed_columns[0]; i++)
        if (strcmp(name, fixed_columns[i]) == 0)
            return true;
    return false;
}

static int column(const csv_row *h, const char *name)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->f[i], name) == 0)
            return (int)i;
    return -1;
}

/* "1,234.5" -> 1234.5; false for "n/a", "" and anything not a number. */
static bool parse_number(const char *s, double *v)
{
    char buf[96];
    size_t k = 0;
    for (const char *c = s; *c && k + 1 < sizeof buf; c++)
        if (*c != ',' && *c != ' ')
            buf[k++] = *c;
    buf[k] = '\0';
    if (k == 0)
        return false;
    char *end = NULL;
    errno = 0;
    double d = strtod(buf, &end);
    if (end == buf || *end || errno == ERANGE || !isfinite(d))
        return false;
    *v = d;
    return true;
}

static void copy_field(char *dst, size_t n, const csv_row *r, int col)
{
    snprintf(dst, n, "%s", col >= 0 && (size_t)col < r->n ? r->f[col] : "");
}

/* Start of the line holding the raw-page header, or NULL. */
static const char *find_header(const char *text)
{
    const char *line = text;
    while (line && *line) {
        if (strncmp(line, "\"ID\",\"Process ID\"", 17) == 0 || strncmp(line, "ID,Process ID", 13) == 0)
            return line;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return NULL;
}

void ncu_report_free(ncu_report *report)
{
    for (size_t i = 0; i < report->nkernels; i++)
        free(report->kernels[i].metrics);
    free(report->kernels);
    memset(report, 0, sizeof *report);
}

/* Where the fixed columns are in the header; -1 when absent. */
typedef struct ncu_columns {
    int id, name, block, grid, device, cc;
} ncu_columns;

/* Appends the kernel of one row of the table to out: its fixed columns,
 * then each metric with its unit (from the units row, NULL when the table
 * has none). */
static bool add_kernel(ncu_report *out, const csv_row *head, const csv_row *units,
                       const csv_row *row, const ncu_columns *c, size_t nmetric, cl_err *e)
{
    ncu_kernel *nk = realloc(out->kernels, (out->nkernels + 1) * sizeof *nk);
    if (!nk)
        return err_set(e, "out of memory reading the Nsight Compute table");
    out->kernels = nk;
    ncu_kernel *k = &out->kernels[out->nkernels++];
    memset(k, 0, sizeof *k);
    double id = -1;
    k->id = c->id >= 0 && parse_number(row->f[c->id], &id) ? (int)id : (int)out->nkernels - 1;
    copy_field(k->name, sizeof k->name, row, c->name);
    copy_field(k->block, sizeof k->block, row, c->block);
    copy_field(k->grid, sizeof k->grid, row, c->grid);
    copy_field(k->device, sizeof k->device, row, c->device);
    copy_field(k->cc, sizeof k->cc, row, c->cc);
    if (nmetric) {
        k->metrics = calloc(nmetric, sizeof *k->metrics);
        if (!k->metrics)
            return err_set(e, "out of memory reading the Nsight Compute table");
    }
    for (size_t i = 0; i < head->n; i++) {
        if (is_fixed(head->f[i]))
            continue;
        ncu_metric *m = &k->metrics[k->nmetrics++];
        snprintf(m->name, sizeof m->name, "%s", head->f[i]);
        if (units && i < units->n)
            snprintf(m->unit, sizeof m->unit, "%s", units->f[i]);
        snprintf(m->text, sizeof m->text, "%s", row->f[i]);
        m->has_value = parse_number(row->f[i], &m->value);
    }
    return true;
}

bool ncu_parse_csv(const char *text, ncu_report *out, cl_err *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text ? find_header(text) : NULL;
    if (!p)
        return err_set(err, "no Nsight Compute table in the output (no header row starting "
                          "with \"ID\",\"Process ID\")");
    csv_row head = {0}, units = {0}, row = {0};
    bool ok = false, have_units = false;
    if (!csv_read(&p, &head)) {
        err_set(err, "out of memory reading the Nsight Compute table");
        goto cleanup;
    }
    ncu_columns c = {
        .id = column(&head, "ID"), .name = column(&head, "Kernel Name"),
        .block = column(&head, "Block Size"), .grid = column(&head, "Grid Size"),
        .device = column(&head, "Device"), .cc = column(&head, "CC"),
    };
    if (c.name < 0) {
        err_set(err, "the Nsight Compute table has no \"Kernel Name\" column");
        goto cleanup;
    }
    size_t nmetric = 0;
    for (size_t i = 0; i < head.n; i++)
        if (!is_fixed(head.f[i]))
            nmetric++;

    int line = 2;
    while (*p) {
        if (*p == '\n' || *p == '\r') {
            p++;
            continue;
        }
        if (*p == '=')
            break;
        if (!csv_read(&p, &row)) {
            err_set(err, "out of memory reading the Nsight Compute table");
            goto cleanup;
        }
        if (row.n != head.n) {
            err_set(err, "row %d of the Nsight Compute table has %zu fields, the header %zu", line,
                    row.n, head.n);
            goto cleanup;
        }
        if (!have_units && out->nkernels == 0 && c.id >= 0 && row.f[c.id][0] == '\0') {
            csv_row t = units;
            units = row;
            row = t;
            have_units = true;
            line++;
            continue;
        }
        if (!add_kernel(out, &head, have_units ? &units : NULL, &row, &c, nmetric, err))
            goto cleanup;
        line++;
    }
    if (out->nkernels == 0) {
        err_set(err, "the Nsight Compute table lists no kernel");
        goto cleanup;
    }
    ok = true;
cleanup:
    row_free(&head);
    row_free(&units);
    row_free(&row);
    if (!ok)
        ncu_report_free(out);
    return ok;
}

const ncu_metric *ncu_metric_find(const ncu_kernel *kernel, const char *name)
{
    for (size_t i = 0; i < kernel->nmetrics; i++)
        if (strcmp(kernel->metrics[i].name, name) == 0)
            return &kernel->metrics[i];
    return NULL;
}

/* ---- metrics -------------------------------------------------------------- */

typedef struct metric_info {
    const char *name, *label;
} metric_info;

static const metric_info metrics[] = {
    {"gpu__time_duration.sum", "duration"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput"},
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy"},
    {"l1tex__t_sector_hit_rate.pct", "L1 hit rate"},
    {"lts__t_sector_hit_rate.pct", "L2 hit rate"},
    {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
     "stall: long scoreboard (waiting on global memory)"},
    {"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
     "stall: short scoreboard (shared memory, special functions)"},
    {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
     "stall: barrier (__syncthreads)"},
    {"smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
     "stall: MIO throttle (shared memory queue full)"},
    {"smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio",
     "stall: LG throttle (global memory queue full)"},
    {"smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
     "stall: math pipe throttle"},
    {"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
     "stall: wait (fixed latency)"},
    {"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
     "stall: not selected (other warps issued)"},
};

const char *ncu_default_metrics(void)
{
    static char list[2048];
    if (!list[0]) {
        size_t len = 0;
        for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
            len = strfmt_append(list, sizeof list, len, "%s%s", i ? "," : "", metrics[i].name);
    }
    return list;
}

const char *ncu_metric_label(const char *name)
{
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
        if (strcmp(metrics[i].name, name) == 0)
            return metrics[i].label;
    return name;
}

bool ncu_find(char *path, size_t path_size)
{
    return which_tool("ncu", path, path_size);
}

const char *ncu_install_hint(void)
{
    return "Nsight Compute (ncu) was not found.  It comes with the full CUDA toolkit (the "
           "cuda-nsight-compute-<major>-<minor> package of NVIDIA's CUDA repository) and as a "
           "standalone download from https://developer.nvidia.com/nsight-compute; put the folder "
           "holding ncu on PATH, or set CUDA_HOME to the toolkit.";
}

/* ---- running ---------------------------------------------------------------- */

char **ncu_argv(const char *ncu, const char *kernel_regex, const char *metrics_list,
                const char *const *cmd, cl_err *err)
{
    if (!cmd || !cmd[0] || !cmd[0][0]) {
        err_set(err, "ncu needs a command to profile");
        return NULL;
    }
    if (!metrics_list || !metrics_list[0])
        metrics_list = ncu_default_metrics();
    char kname[512];
    snprintf(kname, sizeof kname, "regex:%s", kernel_regex && kernel_regex[0] ? kernel_regex : ".");
    const char *fixed[] = {ncu,          "--csv",        "--page",          "raw",
                           "--target-processes", "all",  "--clock-control", "none",
                           "--kernel-name", kname,       "--launch-count",  "1",
                           "--metrics",  metrics_list};
    size_t nfixed = sizeof fixed / sizeof fixed[0], ncmd = 0, bytes = 0;
    while (cmd[ncmd])
        ncmd++;
    for (size_t i = 0; i < nfixed; i++)
        bytes += strlen(fixed[i]) + 1;
    for (size_t i = 0; i < ncmd; i++)
        bytes += strlen(cmd[i]) + 1;
    size_t nptr = nfixed + ncmd + 1;
    char **argv = malloc(nptr * sizeof *argv + bytes);
    if (!argv) {
        err_set(err, "out of memory building the ncu command");
        return NULL;
    }
    char *s = (char *)(argv + nptr);
    size_t k = 0;
    for (size_t i = 0; i < nfixed + ncmd; i++) {
        const char *a = i < nfixed ? fixed[i] : cmd[i - nfixed];
        size_t len = strlen(a) + 1;
        memcpy(s, a, len);
        argv[k++] = s;
        s += len;
    }
    argv[k] = NULL;
    return argv;
}

void ncu_explain(const char *output, const char *kernel_regex, cl_err *err)
{
    if (!output)
        output = "";
    if (strstr(output, "ERR_NVGPUCTRPERM")) {
        err_set(err, "ncu may not read this GPU's performance counters: run it as root, or let "
                   "every user profile (NVIDIA driver option NVreg_RestrictProfilingToAdminUsers=0; "
                   "see https://developer.nvidia.com/ERR_NVGPUCTRPERM)");
        return;
    }
    if (strstr(output, "No kernels were profiled")) {
        err_set(err, "ncu profiled no kernel: none matched the name '%s'",
                kernel_regex && kernel_regex[0] ? kernel_regex : ".");
        return;
    }
    const char *bad = strstr(output, "Failed to find metric");
    if (bad) {
        const char *end = strchr(bad, '\n');
        err_set(err, "this ncu does not know a requested metric: %.*s",
                (int)(end ? (size_t)(end - bad) : strlen(bad)), bad);
        return;
    }
    const char *last = NULL, *p = output;
    while ((p = strstr(p, "==ERROR==")) != NULL) {
        last = p;
        p += 9;
    }
    if (last) {
        const char *end = strchr(last, '\n');
        err_set(err, "ncu: %.*s", (int)(end ? (size_t)(end - last) : strlen(last)), last);
        return;
    }
    err_set(err, "ncu printed no table of results");
}

/* Runs argv with stdout and stderr into one buffer (malloc'd, NUL-terminated);
 * *timed_out is set when it was killed.  When ncu cannot be started, the
 * buffer says so as ncu would, in an ==ERROR== line. */
static char *run_capture(char *const *argv, double timeout_s, bool *timed_out, cl_err *e)
{
    *timed_out = false;
    spawn_opts o = {.argv = (const char *const *)argv, .out = SPAWN_PIPE, .err = SPAWN_TO_OUT};
    spawn_child c;
    strbuf out;
    strbuf_init(&out, NCU_OUTPUT_MAX);
    cl_err why;
    if (!spawn_start(&o, &c, &why)) {
        strbuf_printf(&out, "==ERROR== %s\n", why.msg);
    } else {
        double deadline = clock_now_s() + timeout_s;
        for (;;) {
            double left = deadline - clock_now_s();
            if (left <= 0) {
                spawn_kill(c.pid, false);
                *timed_out = true;
                break;
            }
            struct pollfd pfd = {c.out, POLLIN, 0};
            int pr = poll(&pfd, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
            if (pr <= 0)
                continue;
            char chunk[65536];
            ssize_t n = spawn_read(c.out, chunk, sizeof chunk);
            if (n == 0)
                continue;
            if (n < 0)
                break;
            strbuf_add(&out, chunk, (size_t)n);
        }
        spawn_close(&c);
        spawn_wait(c.pid, true, NULL);
    }
    char *text = strbuf_take(&out);
    if (!text)
        err_set(e, "out of memory reading ncu's output");
    return text;
}

bool ncu_run(const char *ncu, const char *kernel_regex, const char *metrics_list,
             const char *const *cmd, double timeout_s, ncu_report *out, char **output, cl_err *err)
{
    memset(out, 0, sizeof *out);
    if (output)
        *output = NULL;
    char **argv = ncu_argv(ncu, kernel_regex, metrics_list, cmd, err);
    if (!argv)
        return false;
    bool timed_out = false;
    char *text = run_capture(argv, timeout_s > 0 ? timeout_s : 600.0, &timed_out, err);
    free(argv);
    if (!text)
        return false;
    bool ok = false;
    if (timed_out) {
        err_set(err, "ncu did not finish within %.0f s and was stopped",
                timeout_s > 0 ? timeout_s : 600.0);
    } else {
        cl_err pe;
        ok = ncu_parse_csv(text, out, &pe);
        if (!ok)
            ncu_explain(text, kernel_regex, err);
    }
    if (output)
        *output = text;
    else
        free(text);
    return ok;
}
