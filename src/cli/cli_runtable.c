/* cli_runtable.c - the table `cudalab run` prints: a header, then a line
 * a row (median and spread, rates, share of the peak, speedups, result),
 * with the message of a row that failed under it, and under a CPU row read
 * from the cache, when it was measured. */
#include "cli/cli_runtable.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli_diag.h"
#include "cli/cli_rows.h"

static void fmt_ratio(char *buf, size_t n, double v)
{
    if (v <= 0)
        snprintf(buf, n, "-");
    else if (v >= 100)
        snprintf(buf, n, "%.0fx", v);
    else
        snprintf(buf, n, "%.2fx", v);
}

/* The median and its spread; pm is "±" or "+-". */
static void fmt_time(char *buf, size_t n, const run_result *r, const char *pm)
{
    if (r->samples <= 0) {
        snprintf(buf, n, "-");
        return;
    }
    /* four significant digits from 1 ms up (2614 ms, 291.4 ms, 70.59 ms,
     * 2.458 ms), tenths of a microsecond below */
    double m = r->median_ms;
    int decimals = m >= 1000 ? 0 : m >= 100 ? 1 : m >= 10 ? 2 : 3;
    if (m >= 1)
        snprintf(buf, n, "%.*f ms %s%.1f%%", decimals, m, pm, 100 * r->spread);
    else
        snprintf(buf, n, "%.1f us %s%.1f%%", r->median_ms * 1000, pm, 100 * r->spread);
}

void cli_runtable_header(void)
{
    printf("%-20s %-18s %-20s %11s %11s %7s %8s %8s %8s  %s\n", "variant", "size", "median",
           "GB/s", "TFLOP/s", "%peak", "x CPU", "x CPU-mt", "x lib", "result");
}

/* Rows that could not run for want of a device say so once, in the header. */
static bool no_device_row(const run_result *r)
{
    return r->status == RS_NO_DEVICE;
}

void cli_runtable_row(const run_result *result, bool unicode)
{
    char t[48], bw[32], fl[32], pk[16], c1[16], cm[16], lib[16];
    fmt_time(t, sizeof t, result, unicode ? "±" : "+-");
    cli_rows_fmt_rate(bw, sizeof bw, result->gbps);
    cli_rows_fmt_rate(fl, sizeof fl, result->tflops);
    cli_rows_fmt_pct(pk, sizeof pk, result->pct_peak_measured);
    fmt_ratio(c1, sizeof c1, result->speedup_cpu);
    fmt_ratio(cm, sizeof cm, result->speedup_cpu_mt);
    fmt_ratio(lib, sizeof lib, result->speedup_lib);
    char res[48];
    if (no_device_row(result))
        snprintf(res, sizeof res, "no device");
    else if (result->status == RS_CORRECT && result->rel_err >= RUN_SHOWN_ERROR)
        snprintf(res, sizeof res, "correct, error %.1e", result->rel_err);
    else
        snprintf(res, sizeof res, "%s", result_status_name(result->status));
    /* names and sizes whole, as --variant and --size take them: a longer one
     * moves the rest of its line */
    printf("%-20s %-18s %-20s %11s %11s %7s %8s %8s %8s  %s\n", result->variant, result->size,
           t, bw, fl, pk, c1, cm, lib, no_device_row(result) ? "no device" : res);
    /* The learner's row is explained in full below it (cli_diag).  A row
     * that could not run for a reason of its own (one GPU where two are
     * needed), not the missing device the header names, says it here. */
    bool own_reason = !no_device_row(result) || strncmp(result->message, "no CUDA device", 14) != 0;
    if (result->status != RS_CORRECT && result->message[0] && own_reason &&
        !cli_diag_wanted(result))
        printf("    %s\n", result->message);
    if (result->cached_at > 0) {
        char when[32] = "an earlier run";
        time_t at = (time_t)result->cached_at;
        struct tm tmv;
        if (localtime_r(&at, &tmv))
            strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
        printf("    from this machine's cache, measured %s (--fresh-cpu measures it again)\n",
               when);
    }
    fflush(stdout);
}
