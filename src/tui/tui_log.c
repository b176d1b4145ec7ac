#include "tui/tui_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui/tui_text.h"

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

const char *tui_log_text(const tui_log_entry *e, char *buf, size_t n)
{
    if (e->repeat > 1)
        snprintf(buf, n, "%s (x%d)", e->text, e->repeat);
    else
        snprintf(buf, n, "%s", e->text);
    return buf;
}

size_t tui_log_lines(const tui_log *l, int width)
{
    char text[TUI_LOG_TEXT + 16];
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++)
        total += tui_text_wrap(tui_log_text(tui_log_recent(l, i), text, sizeof text), width, NULL,
                               NULL, 0);
    return total;
}
