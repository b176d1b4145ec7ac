/* channel.h - a child's end of the protocol channel its parent opened:
 * where its replies go, and living no longer than that parent (the worker,
 * the multigpu coordinator and its ranks). */
#ifndef CUDALAB_PROTO_CHANNEL_H
#define CUDALAB_PROTO_CHANNEL_H

#include <stdbool.h>

/* PROTO_FD, marked close-on-exec, when the parent opened it as a pipe or a
 * socket; else stdout (a child started by hand; anything else on fd 3,
 * such as a shell's leftover file, is not the channel). */
int proto_channel_fd(void);
/* Asks for SIGKILL when the parent dies; false when that cannot be set or
 * the parent is already gone. */
bool proto_die_with_parent(void);

#endif
