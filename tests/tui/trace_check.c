/* trace_check FILE: exits 0 when FILE is a Chrome trace that validates
 * (prof/trace.h) and reads back, printing its lanes and events; used by the
 * end-to-end test to check the trace the UI exported. */
#include <stdio.h>
#include <stdlib.h>

#include "core/atomicfile.h"
#include "prof/trace.h"

int main(int argc, char **argv)
{
    cl_err e;
    size_t len = 0;
    char *text;
    timeline t;
    if (argc != 2) {
        fprintf(stderr, "usage: trace_check FILE\n");
        return 2;
    }
    text = file_read_all(argv[1], TRACE_MAX_BYTES, &len, &e);
    if (!text) {
        fprintf(stderr, "trace_check: %s\n", e.msg);
        return 1;
    }
    if (!trace_validate(text, &e) || !trace_parse(text, &t, &e)) {
        fprintf(stderr, "trace_check: %s: %s\n", argv[1], e.msg);
        free(text);
        return 1;
    }
    printf("%zu lanes, %zu events\n", t.nlanes, t.nitems);
    timeline_free(&t);
    free(text);
    return 0;
}
