/* supervisor_printed.c - what the worker prints (a kernel's printf, a
 * failed device assert) passed on to the log line by line, bounded per
 * run: the first lines reach the log, the rest are only counted, so a
 * kernel where a million threads print cannot flood the TUI. */
#include "supervise/supervisor_internal.h"

#include <stdio.h>
#include <string.h>

static void emit_line(supervisor *s)
{
    size_t n = s->printed_len;
    while (n > 0 && (s->printed[n - 1] == '\r' || s->printed[n - 1] == ' '))
        n--;
    s->printed[n] = '\0';
    s->printed_len = 0;
    if (n == 0)
        return;
    if (s->printed_shown >= SUP_PRINTED_LINES || !s->cur_run) {
        s->printed_dropped++;
        return;
    }
    s->printed_shown++;
    if (s->cb.on_log) {
        char msg[SUP_PRINTED_WIDTH + 32];
        snprintf(msg, sizeof msg, "printed: %s%s", s->printed,
                 s->printed_cut ? " [line cut]" : "");
        s->cb.on_log(s->ud, 0, msg);
    }
    s->printed_cut = false;
}

void supervisor_printed_add(supervisor *sup, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        if (c == '\n') {
            emit_line(sup);
            continue;
        }
        if (sup->printed_len < SUP_PRINTED_WIDTH) {
            unsigned char u = (unsigned char)c;
            sup->printed[sup->printed_len++] = u < 0x20 && c != '\t' ? '?' : c;
        } else {
            sup->printed_cut = true;
        }
    }
}

void supervisor_printed_begin(supervisor *sup)
{
    sup->printed_len = 0;
    sup->printed_shown = 0;
    sup->printed_dropped = 0;
    sup->printed_cut = false;
}

void supervisor_printed_end(supervisor *sup)
{
    if (sup->printed_len > 0)
        emit_line(sup);
    if (sup->printed_dropped > 0 && sup->cb.on_log) {
        char msg[320];
        snprintf(msg, sizeof msg,
                 "%lu more printed line%s not shown (the log keeps the first %d of a run; "
                 "the GPU's printf buffer holds at most 256 MiB a launch; past it lines are lost and "
                 "printing turns very slow): "
                 "print from one thread, e.g. if (i == 0)",
                 sup->printed_dropped, sup->printed_dropped == 1 ? "" : "s", SUP_PRINTED_LINES);
        sup->cb.on_log(sup->ud, 1, msg);
    }
    sup->printed_dropped = 0;
    sup->printed_shown = 0;
}
