#include "support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

int ts_tl_add(timeline *t, int lane, tl_kind kind, const char *name, uint64_t start_ns,
              uint64_t end_ns, uint64_t bytes, unsigned flags, uint32_t stream)
{
    tl_item it;
    memset(&it, 0, sizeof it);
    it.lane = lane;
    it.kind = kind;
    snprintf(it.name, sizeof it.name, "%s", name);
    it.start_ns = start_ns;
    it.end_ns = end_ns;
    it.bytes = bytes;
    it.flags = flags;
    it.stream = stream;
    cl_err err = {{0}};
    if (!timeline_add(t, &it, &err))
        fail_msg("timeline_add %s: %s", name, err.msg);
    return (int)t->nitems - 1;
}
