#include "tui/tui_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui/tui_text.h"

void tui_log_add(tui_log *log, tui_log_level level, const char *fmt, ...)
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
    log->serial++;
    if (log->n > 0) {
        e = &log->v[(log->start + log->n - 1) % TUI_LOG_MAX];
        if (e->level == level && strcmp(e->text, text) == 0) {
            e->repeat++;
            return;
        }
    }
    if (log->n == TUI_LOG_MAX) {
        log->start = (log->start + 1) % TUI_LOG_MAX;
        log->n--;
    }
    e = &log->v[(log->start + log->n) % TUI_LOG_MAX];
    e->level = level;
    e->repeat = 1;
    memcpy(e->text, text, sizeof text);
    log->n++;
}

const tui_log_entry *tui_log_recent(const tui_log *log, size_t back)
{
    if (back >= log->n)
        return NULL;
    return &log->v[(log->start + log->n - 1 - back) % TUI_LOG_MAX];
}

const char *tui_log_text(const tui_log_entry *entry, char *buf, size_t buf_size)
{
    if (entry->repeat > 1)
        snprintf(buf, buf_size, "%s (x%d)", entry->text, entry->repeat);
    else
        snprintf(buf, buf_size, "%s", entry->text);
    return buf;
}

size_t tui_log_lines(const tui_log *log, int width)
{
    char text[TUI_LOG_TEXT + 16];
    size_t total = 0;
    for (size_t i = 0; i < log->n; i++)
        total += tui_text_wrap(tui_log_text(tui_log_recent(log, i), text, sizeof text), width, NULL,
                               NULL, 0);
    return total;
}
