/* watch.h - noticing when the learner saves a file (Linux inotify).
 *
 * A watch follows the files directly inside one or more folders (not their
 * subfolders).  A save is a file closed after writing (IN_CLOSE_WRITE) or a
 * file renamed into the folder (IN_MOVED_TO: editors that write a temporary
 * file and rename it over the original).  Editors' own droppings are ignored:
 * names starting with '.' or '#', ending in '~', ".swp", ".swx", ".tmp", or
 * vim's probe file "4913", and cudalab's own "*.new.<pid>" temporaries.
 *
 * Saves are debounced: a path is reported once it has been quiet for the
 * debounce interval (default 150 ms), so an editor's burst of writes is one
 * change.  watch_fd() becomes readable both when events arrive and when a
 * debounced change falls due, so a poll() loop needs no timeout of its own:
 * when it wakes, call watch_poll(). */
#ifndef CUDALAB_CORE_WATCH_H
#define CUDALAB_CORE_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/paths.h"

#define WATCH_DEBOUNCE_MS 150

typedef struct watch watch;

typedef struct watch_change {
    char path[CL_PATH_MAX];      /* folder/name of the saved file */
} watch_change;

/* A watch with the given debounce in milliseconds (<= 0: WATCH_DEBOUNCE_MS). */
watch *watch_new(int debounce_ms, cl_err *err);
void watch_free(watch *watcher);
/* Starts following the files in dir (any number of folders, up to the
 * system's inotify limit, which the error names with the sysctl to raise). */
bool watch_add(watch *watcher, const char *dir, cl_err *err);
/* Stops following dir; false + err when it was not followed. */
bool watch_remove(watch *watcher, const char *dir, cl_err *err);
/* The descriptor to poll() for reading. */
int watch_fd(const watch *watcher);
/* Reads pending events without blocking and copies up to max changes that
 * have been quiet for the debounce interval into out, oldest first, each
 * path once.  Returns their number (changes beyond max stay for the next
 * call), or -1 + err on a read error. */
int watch_poll(watch *watcher, watch_change *out, size_t max, cl_err *err);
/* Blocks until at least one change is due or timeout_ms passes (< 0: no
 * limit), then does what watch_poll does.  For command-line use and tests. */
int watch_wait(watch *watcher, int timeout_ms, watch_change *out, size_t max, cl_err *err);
/* Milliseconds until the next pending change falls due; -1 when none waits. */
int watch_pending_ms(const watch *watcher);

#endif
