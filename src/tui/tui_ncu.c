#include "tui/tui_ncu.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strfmt.h"
#include "tui/tui_job.h"

static const char *const main_metrics[] = {
    "gpu__time_duration.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "l1tex__t_sector_hit_rate.pct",
    "lts__t_sector_hit_rate.pct",
};

#define STALL_MARK "_issue_stalled_"

static const char *short_unit(const char *u)
{
    static const struct {
        const char *ncu, *shown;
    } units[] = {
        {"nsecond", "ns"}, {"usecond", "us"}, {"msecond", "ms"}, {"second", "s"},
        {"%", "%"},        {"ratio", ""},     {"byte", "B"},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(u, units[i].ncu) == 0)
            return units[i].shown;
    return u;
}

static size_t add_metric(char *buf, size_t n, size_t at, const char *label, const ncu_metric *m)
{
    if (!m->has_value)
        return strfmt_append(buf, n, at, "  %-44s %10s\n", label, "n/a");
    return strfmt_append(buf, n, at, "  %-44s %10s %s\n", label, m->text, short_unit(m->unit));
}

int tui_ncu_format(const ncu_kernel *kernel, int max_stalls, char *buf, size_t buf_size)
{
    size_t at = 0;
    const ncu_metric *stalls[64];
    int ns = 0;
    if (buf_size > 0)
        buf[0] = '\0';
    at = strfmt_append(buf, buf_size, at, "Nsight Compute, first launch of %s", kernel->name);
    if (kernel->grid[0] || kernel->block[0])
        at = strfmt_append(buf, buf_size, at, ": grid %s, block %s", kernel->grid, kernel->block);
    at = strfmt_append(buf, buf_size, at, "\n");
    for (size_t i = 0; i < sizeof main_metrics / sizeof main_metrics[0]; i++) {
        const ncu_metric *m = ncu_metric_find(kernel, main_metrics[i]);
        if (m)
            at = add_metric(buf, buf_size, at, ncu_metric_label(m->name), m);
    }
    for (size_t i = 0; i < kernel->nmetrics && ns < 64; i++)
        if (strstr(kernel->metrics[i].name, STALL_MARK) && kernel->metrics[i].has_value)
            stalls[ns++] = &kernel->metrics[i];
    for (int a = 1; a < ns; a++)
        for (int b = a; b > 0 && stalls[b]->value > stalls[b - 1]->value; b--) {
            const ncu_metric *t = stalls[b];
            stalls[b] = stalls[b - 1];
            stalls[b - 1] = t;
        }
    if (ns > max_stalls)
        ns = max_stalls;
    if (ns > 0)
        at = strfmt_append(buf, buf_size, at,
                           "Top stall reasons (cycles a warp waits per instruction issued):\n");
    for (int i = 0; i < ns; i++) {
        const char *label = ncu_metric_label(stalls[i]->name);
        if (strncmp(label, "stall: ", 7) == 0)
            label += 7;
        at = add_metric(buf, buf_size, at, label, stalls[i]);
    }
    for (size_t i = 0; i < kernel->nmetrics; i++) {
        bool listed = strstr(kernel->metrics[i].name, STALL_MARK) != NULL;
        for (size_t j = 0; j < sizeof main_metrics / sizeof main_metrics[0]; j++)
            listed |= strcmp(kernel->metrics[i].name, main_metrics[j]) == 0;
        if (!listed)
            at = add_metric(buf, buf_size, at, ncu_metric_label(kernel->metrics[i].name),
                            &kernel->metrics[i]);
    }
    return (int)at;
}

/* Skips blanks, comments and one balanced (...) when at one; returns the
 * next position. */
static const char *skip_blank(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else {
            return p;
        }
    }
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* At the text after "__global__": the name of the function declared. */
static bool declared_name(const char *p, char *name, size_t n)
{
    char last[128] = "";
    for (int guard = 0; guard < 64 && *p; guard++) {
        p = skip_blank(p);
        if (ident_char(*p)) {
            size_t len = 0;
            while (ident_char(p[len]))
                len++;
            snprintf(last, sizeof last, "%.*s", (int)(len < sizeof last ? len : sizeof last - 1), p);
            p += len;
        } else if (*p == '(') {
            if (last[0] && strcmp(last, "__launch_bounds__") != 0 && strcmp(last, "__align__") != 0) {
                snprintf(name, n, "%s", last);
                return true;
            }
            for (int depth = 0; *p; p++) {
                depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
                if (depth == 0) {
                    p++;
                    break;
                }
            }
            last[0] = '\0';
        } else if (*p == ';' || *p == '{') {
            return false;
        } else if (*p) {
            p++;
        }
    }
    return false;
}

int tui_ncu_kernel_regex(const char *source, char *out, size_t out_size)
{
    const char *p = source;
    size_t at = 0;
    int found = 0;
    if (out_size > 0)
        out[0] = '\0';
    while (p && *p) {
        char name[128];
        p = skip_blank(p);
        if (strncmp(p, "__global__", 10) == 0 && !ident_char(p[10])) {
            p += 10;
            if (declared_name(p, name, sizeof name)) {
                bool dup = false;
                char probe[140];
                snprintf(probe, sizeof probe, "%s|", name);
                dup = at > 0 && (strstr(out, probe) != NULL);
                if (!dup && at + strlen(name) + 8 < out_size) {
                    at = strfmt_append(out, out_size, at, "%s|", name);
                    found++;
                }
            }
            continue;
        }
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
            continue;
        }
        while (*p && !isspace((unsigned char)*p) && *p != '/' && *p != '"')
            p++;
        if (*p == '/' && p[1] != '/' && p[1] != '*')
            p++;
    }
    if (found == 0)
        return 0;
    out[at - 1] = '\0';
    {
        char body[1024];
        snprintf(body, sizeof body, "%s", out);
        snprintf(out, out_size, "^(%s)$", body);
    }
    return found;
}

int tui_ncu_child(void *ud, int fd)
{
    tui_ncu_job *j = ud;
    const char *cmd[TUI_NCU_MAX_ARGS + 1];
    ncu_report rep;
    char *out = NULL;
    cl_err e = {{0}};
    static char text[16384];
    for (int i = 0; i < j->nargs && i < TUI_NCU_MAX_ARGS; i++)
        cmd[i] = j->args[i];
    cmd[j->nargs < TUI_NCU_MAX_ARGS ? j->nargs : TUI_NCU_MAX_ARGS] = NULL;
    if (!ncu_run(j->ncu, j->kernel, NULL, cmd, j->timeout_s, &rep, &out, &e)) {
        bool absent = out && strstr(out, "no CUDA device found");
        free(out);
        tui_job_write(fd, "ERR\n");
        tui_job_write(fd, absent ? "no CUDA device found: Nsight Compute has nothing to profile" : e.msg);
        return 1;
    }
    free(out);
    if (rep.nkernels == 0) {
        ncu_report_free(&rep);
        snprintf(text, sizeof text, "Nsight Compute profiled no kernel matching '%s'", j->kernel);
        tui_job_write(fd, "ERR\n");
        tui_job_write(fd, text);
        return 1;
    }
    tui_ncu_format(&rep.kernels[0], 4, text, sizeof text);
    ncu_report_free(&rep);
    tui_job_write(fd, "OK\n");
    tui_job_write(fd, text);
    return 0;
}
