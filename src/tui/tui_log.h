/* tui_log.h - the message area's memory: the last messages, newest last.
 *
 * A message equal to the one before it is counted, not repeated
 * ("no CUDA device found (x4)"). */
#ifndef CUDALAB_TUI_LOG_H
#define CUDALAB_TUI_LOG_H

#include <stddef.h>

#define TUI_LOG_MAX 64
#define TUI_LOG_TEXT 512

typedef enum tui_log_level { TUI_LOG_INFO, TUI_LOG_WARN, TUI_LOG_ERROR } tui_log_level;

typedef struct tui_log_entry {
    tui_log_level level;
    int repeat;
    char text[TUI_LOG_TEXT];
} tui_log_entry;

typedef struct tui_log {
    tui_log_entry v[TUI_LOG_MAX];
    size_t start, n;
    unsigned serial;          /* changes whenever something is added */
} tui_log;

void tui_log_add(tui_log *log, tui_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The entry back places before the newest (0: the newest), or NULL. */
const tui_log_entry *tui_log_recent(const tui_log *log, size_t back);
/* The entry's text as shown: with " (xN)" when it came N times.  Returns buf. */
const char *tui_log_text(const tui_log_entry *entry, char *buf, size_t buf_size);
/* Lines the whole log takes word-wrapped to width columns (the messages
 * view scrolls over them, oldest first). */
size_t tui_log_lines(const tui_log *log, int width);

#endif
