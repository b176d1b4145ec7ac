/* Faults: how a run ends when the worker dies (by a signal, with an exit
 * status, before saying hello), runs past the time limit or breaks the
 * protocol, told in words with the end of what the worker printed. */
#define _GNU_SOURCE   /* sigabbrev_np (glibc) */
#include "supervise/supervisor_internal.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/clock.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
#define SUP_HAVE_SIGABBREV 1
#endif

/* "SEGV" for SIGSEGV; NULL when unknown. */
static const char *signal_abbrev(int sig)
{
#ifdef SUP_HAVE_SIGABBREV
    return sigabbrev_np(sig);
#else
    static const struct { int sig; const char *name; } names[] = {
        {SIGSEGV, "SEGV"}, {SIGBUS, "BUS"}, {SIGABRT, "ABRT"}, {SIGFPE, "FPE"},
        {SIGILL, "ILL"}, {SIGKILL, "KILL"}, {SIGTERM, "TERM"}, {SIGINT, "INT"},
        {SIGQUIT, "QUIT"}, {SIGHUP, "HUP"}, {SIGPIPE, "PIPE"}, {SIGTRAP, "TRAP"},
        {SIGSYS, "SYS"}, {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"}, {SIGUSR1, "USR1"},
        {SIGUSR2, "USR2"}, {SIGALRM, "ALRM"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return NULL;
#endif
}

static void signal_text(int sig, char *buf, size_t n)
{
    const char *abbrev = signal_abbrev(sig);
    const char *desc = strsignal(sig);
    if (abbrev)
        snprintf(buf, n, "SIG%s (%s)", abbrev, desc ? desc : "unknown signal");
    else
        snprintf(buf, n, "signal %d", sig);
}

/* Writes into buf the end of the worker's output that fits, on one line:
 * runs of whitespace become one space, other control bytes are dropped. */
static void output_excerpt(const supervisor *s, char *buf, size_t n)
{
    char *raw = malloc(SUP_TAIL_MAX + 1);
    buf[0] = '\0';
    if (!raw || n < 8) {
        free(raw);
        return;
    }
    size_t len = supervisor_output(s, raw, SUP_TAIL_MAX + 1), j = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)raw[i];
        if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
            if (j > 0 && raw[j - 1] != ' ')
                raw[j++] = ' ';
        } else if (c >= 0x20 && c != 0x7f) {
            raw[j++] = (char)c;
        }
    }
    while (j > 0 && raw[j - 1] == ' ')
        j--;
    raw[j] = '\0';
    size_t from = 0;
    if (j > n - 1) {
        from = j - (n - 4);
        while (from < j && ((unsigned char)raw[from] & 0xC0) == 0x80)
            from++;
        snprintf(buf, n, "...%s", raw + from);
    } else {
        snprintf(buf, n, "%s", raw);
    }
    free(raw);
}

static void describe_exit(const supervisor *s, int status, const char *when, char *cause,
                          size_t ncause, char *msg, size_t nmsg)
{
    char head[200], printed[400];
    if (WIFSIGNALED(status)) {
        char sig[96];
        signal_text(WTERMSIG(status), sig, sizeof sig);
        snprintf(cause, ncause, "signal");
        snprintf(head, sizeof head, "the worker was killed by %s%s%s", sig, when,
                 WTERMSIG(status) == SIGKILL
                     ? " from outside cudalab, perhaps because the system ran out of memory" : "");
    } else {
        snprintf(cause, ncause, "exit");
        snprintf(head, sizeof head, "the worker exited with status %d%s", WEXITSTATUS(status), when);
    }
    size_t room = nmsg > strlen(head) + 32 ? nmsg - strlen(head) - 24 : 8;
    output_excerpt(s, printed, room < sizeof printed ? room : sizeof printed);
    if (printed[0])
        snprintf(msg, nmsg, "%s; the worker printed: %s", head, printed);
    else
        snprintf(msg, nmsg, "%s", head);
}

void supervisor_faults_end_run(supervisor *sup, run_fault *fault, int idle_level)
{
    snprintf(sup->last_stop, sizeof sup->last_stop, "%s", fault->message);
    int run = sup->cur_run;
    fault->run = run;
    if (!run) {
        if (sup->cb.on_log)
            sup->cb.on_log(sup->ud, idle_level, fault->message);
        return;
    }
    supervisor_printed_end(sup);
    sup->cur_run = 0;
    supervisor_worker_arm_timer(sup, 0);
    if (sup->cb.on_fault)
        sup->cb.on_fault(sup->ud, fault);
    if (sup->cb.on_done)
        sup->cb.on_done(sup->ud, run);
}

void supervisor_faults_fail_run(supervisor *sup, const char *cause, const char *message)
{
    run_fault f;
    memset(&f, 0, sizeof f);
    snprintf(f.variant, sizeof f.variant, "%s", sup->cur_variant);
    snprintf(f.cause, sizeof f.cause, "%s", cause);
    snprintf(f.message, sizeof f.message, "%s", message);
    supervisor_faults_end_run(sup, &f, 1);
}

void supervisor_faults_kill_and_fail(supervisor *sup, const char *cause, const char *message)
{
    supervisor_worker_stop(sup);
    supervisor_faults_fail_run(sup, cause, message);
}

void supervisor_faults_protocol(supervisor *sup, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "the worker broke the protocol: %s", what);
    supervisor_faults_kill_and_fail(sup, "protocol", msg);
}

void supervisor_faults_exited(supervisor *sup, int status, int run_before)
{
    char cause[32], msg[512];
    bool had_hello = sup->have_hello;
    describe_exit(sup, status, had_hello ? "" : " before saying hello", cause, sizeof cause, msg,
                  sizeof msg);
    supervisor_worker_stop(sup);
    if (sup->cur_run && sup->cur_run != run_before) {
        /* A callback submitted a new run to the worker as it was exiting:
         * give that run to a fresh worker. */
        cl_err err;
        if (!supervisor_worker_start(sup, &err))
            supervisor_faults_fail_run(sup, "exit", err.msg);
        else if (sup->last_req &&
                 supervisor_worker_queue(sup, sup->last_req, sup->last_req_len, NULL))
            supervisor_worker_flush(sup);
        return;
    }
    if (sup->cur_run) {
        supervisor_faults_fail_run(sup, cause, msg);
        return;
    }
    snprintf(sup->last_stop, sizeof sup->last_stop, "%s", msg);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && sup->cb.on_log)
        sup->cb.on_log(sup->ud, had_hello ? 1 : 2, sup->last_stop);
}

void supervisor_faults_check_deadline(supervisor *sup)
{
    if (!sup->cur_run || clock_now_s() < sup->deadline)
        return;
    char msg[512], at[RUN_SIZE_MAX + 16] = "";
    const char *v = sup->cur_variant;
    if (sup->cur_size[0])
        snprintf(at, sizeof at, " at size %s", sup->cur_size);
    if (!v[0])
        snprintf(msg, sizeof msg,
                 "the run took longer than %g s before any row started (starting the GPU "
                 "worker or preparing the inputs)",
                 sup->cur_limit_s);
    else if (strncmp(v, "exercise", 8) == 0)
        snprintf(msg, sizeof msg,
                 "your kernel%s was still running after %g s%s%s: it may loop forever or "
                 "deadlock at a barrier",
                 at, sup->cur_limit_s, sup->cur_phase[0] ? ", while " : "", sup->cur_phase);
    else if (strcmp(v, RUN_FAULT_REFERENCE) == 0)
        snprintf(msg, sizeof msg,
                 "the lab's reference%s was still running after %g s, before your kernel "
                 "ran: give the run more time (--time-limit) or pick a smaller size",
                 at, sup->cur_limit_s);
    else if (strncmp(v, "cpu", 3) == 0)
        snprintf(msg, sizeof msg,
                 "the CPU baseline (%s)%s was still running after %g s: give the run more time "
                 "(--time-limit) or pick a smaller size",
                 v, at, sup->cur_limit_s);
    else
        snprintf(msg, sizeof msg,
                 "the row %s%s was still running after %g s%s%s: give the run more time "
                 "(--time-limit) or pick a smaller size",
                 v, at, sup->cur_limit_s, sup->cur_phase[0] ? ", while " : "", sup->cur_phase);
    supervisor_faults_kill_and_fail(sup, "timeout", msg);
}
