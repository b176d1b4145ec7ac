/* group_fault.c - why a group was stopped, in words that name the GPU. */
#define _GNU_SOURCE   /* sigabbrev_np (glibc) */
#include "group/group_internal.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "core/strfmt.h"

void group_fault_note(group_stop *stop, int rank, const char *cause, const char *fmt, ...)
{
    if (stop->stopped)
        return;
    stop->stopped = true;
    stop->rank = rank;
    strfmt_copy(stop->cause, sizeof stop->cause, cause);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(stop->what, sizeof stop->what, fmt, ap);
    va_end(ap);
}

void group_fault_exit_words(int status, char *out, size_t n)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *abbrev = sigabbrev_np(sig);
        snprintf(out, n, "was killed by signal %d (SIG%s)", sig, abbrev ? abbrev : "?");
    } else if (WIFEXITED(status)) {
        snprintf(out, n, "exited with status %d", WEXITSTATUS(status));
    } else {
        snprintf(out, n, "ended (wait status %d)", status);
    }
}

/* " in ar_ring at 256 MiB (timing)", or "" when it had not started. */
static void where(const group_rank *r, char *out, size_t n)
{
    if (!r->variant[0]) {
        snprintf(out, n, " while starting");
        return;
    }
    snprintf(out, n, " in %s%s%s%s%s%s", r->variant, r->size[0] ? " at " : "", r->size,
             r->phase[0] ? " (" : "", r->phase, r->phase[0] ? ")" : "");
}

/* The last line the rank printed, for a hint at what went wrong. */
static void last_line(const group_rank *r, char *out, size_t n)
{
    out[0] = '\0';
    size_t end = r->tail_len;
    while (end > 0 && (r->tail[end - 1] == '\n' || r->tail[end - 1] == '\r'))
        end--;
    size_t start = end;
    while (start > 0 && r->tail[start - 1] != '\n')
        start--;
    if (end > start)
        strfmt_copy_n(out, n, r->tail + start, end - start);
}

void group_fault_make(const group_stop *stop, const group_rank *ranks, int nranks,
                      run_fault *fault)
{
    memset(fault, 0, sizeof *fault);
    strfmt_copy(fault->cause, sizeof fault->cause, stop->cause);
    char at[160] = "", printed[200] = "";
    size_t len = 0;
    if (stop->rank >= 0 && stop->rank < nranks) {
        const group_rank *r = &ranks[stop->rank];
        where(r, at, sizeof at);
        last_line(r, printed, sizeof printed);
        strfmt_copy(fault->variant, sizeof fault->variant, r->variant);
        len = strfmt_append(fault->message, sizeof fault->message, 0, "GPU %d (rank %d) %s%s",
                            stop->rank, stop->rank, stop->what, at);
    } else {
        len = strfmt_append(fault->message, sizeof fault->message, 0, "%s", stop->what);
    }
    if (printed[0])
        len = strfmt_append(fault->message, sizeof fault->message, len, " [it printed: %s]",
                            printed);
    len = strfmt_append(fault->message, sizeof fault->message, len,
                        "; the group of %d was stopped and every rank ended", nranks);
    (void)len;
}
