#include "cli/cli_rows.h"

#include <ctype.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/grow.h"
#include "core/units.h"

void cli_rows_init(cli_rows *rows, bool json)
{
    memset(rows, 0, sizeof *rows);
    rows->json = json;
    rows->tty = isatty(STDERR_FILENO) != 0;
}

void cli_rows_free(cli_rows *rows)
{
    free(rows->v);
    rows->v = NULL;
    rows->n = rows->cap = 0;
    free(rows->output);
    rows->output = NULL;
}

static volatile sig_atomic_t g_stop;

static void on_stop_signal(int sig)
{
    g_stop = sig;
}

int cli_rows_run(cli_rows *rows, run_request *req, double time_limit_s,
                 const supervisor_callbacks *cb, void *ud)
{
    /* ^C or a job scheduler's TERM cancels the run and returns, so that the
     * rows already finished are printed (and flushed into a pipe) and the
     * worker is stopped, instead of the process dying with them. */
    struct sigaction stop = {.sa_handler = on_stop_signal}, old_int, old_term;
    sigemptyset(&stop.sa_mask);
    g_stop = 0;
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    supervisor_opts so = {.time_limit_s = time_limit_s, .cb = cb, .ud = ud};
    cl_err e = {{0}};
    int rc = EXIT_OK;
    supervisor *s = supervisor_new(&so, &e);
    if (!s || !supervisor_submit(s, req, time_limit_s, &e)) {
        fprintf(stderr, "cudalab: cannot start the GPU worker: %s\n", e.msg);
        rc = EXIT_ENV;
        goto done;
    }
    while (supervisor_busy(s) && !g_stop)
        if (!supervisor_pump(s, 100))
            break;
    if (g_stop) {
        supervisor_cancel(s);
        rows->interrupted = true;
        fprintf(stderr, "cudalab: interrupted: the rows above are those that finished\n");
    }
    char out[16384];
    size_t n = supervisor_output(s, out, sizeof out);
    free(rows->output);
    rows->output = n ? strdup(out) : NULL;
done:
    supervisor_free(s);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}

void cli_rows_hello(cli_rows *rows, const device_info *dev, const char *absent)
{
    rows->dev = *dev;
    rows->have_dev = true;
    if (rows->json)
        return;
    if (dev->present && dev->peak_bw_measured_gbs > 0.0)
        printf("Device: %s, %d SMs, %.0f GB/s measured copy bandwidth (%.0f GB/s reading only), "
               "%.1f TFLOP/s FP32 peak\n\n",
               dev->name, dev->sm_count, dev->peak_bw_measured_gbs, dev->peak_bw_read_gbs,
               dev->peak_fp32_tflops);
    else if (dev->present)   /* a run that measures no copy bandwidth (multigpu's probe) */
        printf("Device: %s, %d SMs, %.1f TFLOP/s FP32 peak\n\n", dev->name, dev->sm_count,
               dev->peak_fp32_tflops);
    else if (absent)    /* a message, not data: standard error */
        fprintf(stderr, "%s\n%s\n\n", cli_rows_reason(rows), absent);
    else
        fprintf(stderr, "%s\n\n", cli_rows_reason(rows));
}

bool cli_rows_add(cli_rows *rows, const run_result *result)
{
    if (!grow_one((void **)&rows->v, &rows->cap, rows->n, sizeof *rows->v, 32))
        return false;
    rows->v[rows->n++] = *result;
    return true;
}

void cli_rows_fault(cli_rows *rows, const run_fault *fault)
{
    rows->fault = *fault;
    rows->faulted = true;
    cli_rows_clear_progress(rows);
    fprintf(stderr, "fault (%s)%s%s: %s\n", fault->cause, fault->variant[0] ? " in " : "",
            fault->variant, fault->message);
}

void cli_rows_log(const cli_rows *rows, int level, const char *msg)
{
    if (level == 0 && rows->json)
        return;
    cli_rows_clear_progress(rows);
    fprintf(stderr, "%s%s\n", level >= 2 ? "error: " : level == 1 ? "warning: " : "", msg);
}

void cli_rows_progress(const cli_rows *rows, const char *fmt, ...)
{
    if (rows->json || !rows->tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r  ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("   ", stderr);
    va_end(ap);
    fflush(stderr);
}

void cli_rows_clear_progress(const cli_rows *rows)
{
    if (rows->tty && !rows->json)
        fputs("\r\033[K", stderr);
}

bool cli_rows_no_device(const cli_rows *rows)
{
    return rows->have_dev && !rows->dev.present;
}

const char *cli_rows_reason(const cli_rows *rows)
{
    return rows->dev.reason[0] ? rows->dev.reason : "no CUDA device found";
}

/* A lab's own row that could not run for want of memory on this machine
 * (the problem's buffers do not fit: "needs 12 GiB, device has 9.1 GiB
 * free"): the machine's limit, not anyone's mistake.  The learner's own row
 * is not one: its launcher chose what to allocate. */
static bool too_big_here(const run_result *r)
{
    return r->kind != RK_EXERCISE && r->status == RS_ERROR &&
           ((strstr(r->message, "needs ") && strstr(r->message, " free")) ||
            strstr(r->message, "out of host memory"));
}

int cli_rows_exit_code(const cli_rows *rows)
{
    /* Something that ran and failed, or the learner's code that cannot run
     * (it does not compile, its launcher fails): 1, device or not.  Rows
     * that this machine could not hold, with nothing else wrong: 3. */
    if (rows->interrupted)
        return EXIT_INTERRUPTED;
    if (rows->faulted)
        return EXIT_FAIL;
    bool absent = cli_rows_no_device(rows);
    for (size_t i = 0; i < rows->n; i++)
        if (rows->v[i].status != RS_CORRECT && rows->v[i].status != RS_NO_DEVICE &&
            !too_big_here(&rows->v[i]))
            return EXIT_FAIL;
    for (size_t i = 0; i < rows->n; i++)
        absent |= rows->v[i].status == RS_NO_DEVICE || too_big_here(&rows->v[i]);
    return absent ? EXIT_ENV : EXIT_OK;
}

void cli_rows_fmt_rate(char *buf, size_t buf_size, double value)
{
    if (value < 0)
        snprintf(buf, buf_size, "-");
    else if (value >= 100)
        snprintf(buf, buf_size, "%.0f", value);
    else
        snprintf(buf, buf_size, "%.2f", value);
}

void cli_rows_fmt_pct(char *buf, size_t buf_size, double pct)
{
    units_pct(pct, buf, buf_size);
}

void cli_print_json(cJSON *root)
{
    /* Every document says which layout of its command it follows, as its
     * first field; a field that changes meaning or goes away raises it
     * (docs/cudalab.1, JSON OUTPUT). */
    if (cJSON_IsObject(root) && !cJSON_GetObjectItemCaseSensitive(root, "format_version")) {
        cJSON *doc = cJSON_CreateObject();
        if (doc && cJSON_AddNumberToObject(doc, "format_version", CLI_JSON_FORMAT_VERSION)) {
            cJSON *item;
            while ((item = root->child) != NULL) {
                cJSON_DetachItemViaPointer(root, item);
                cJSON_AddItemToObject(doc, item->string, item);
            }
            cJSON_Delete(root);
            root = doc;
        } else {
            cJSON_Delete(doc);
        }
    }
    char *txt = root ? cJSON_Print(root) : NULL;
    if (txt)
        puts(txt);
    free(txt);
    cJSON_Delete(root);
}

bool cli_rows_unicode(bool ascii)
{
    if (ascii)
        return false;
    static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !v[0])
            continue;
        char low[128];
        size_t k = 0;
        for (; v[k] && k + 1 < sizeof low; k++)
            low[k] = (char)tolower((unsigned char)v[k]);
        low[k] = '\0';
        return strstr(low, "utf-8") || strstr(low, "utf8");
    }
    return false;
}
