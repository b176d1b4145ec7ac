#include "tui/tui_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tui_log_add(tui_log *l, tui_log_level level, const char *fmt, ...)
{
    char text[TUI_LOG_TEXT];
    va_list ap;
    tui_log_entry *e;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    l->serial++;
    if (l->n > 0) {
        e = &l->v[(l->start + l->n - 1) % TUI_LOG_MAX];
        if (e->level == level && strcmp(e->text, text) == 0) {
            e->repeat++;
            return;
        }
    }
    if (l->n == TUI_LOG_MAX) {
        l->start = (l->start + 1) % TUI_LOG_MAX;
        l->n--;
    }
    e = &l->v[(l->start + l->n) % TUI_LOG_MAX];
    e->level = level;
    e->repeat = 1;
    memcpy(e->text, text, sizeof text);
    l->n++;
}

const tui_log_entry *tui_log_recent(const tui_log *l, size_t i)
{
    if (i >= l->n)
        return NULL;
    return &l->v[(l->start + l->n - 1 - i) % TUI_LOG_MAX];
}
