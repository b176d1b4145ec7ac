/* store_inject.c - records a run of the learner's kernel in a progress
 * store, as a GPU machine would have, for the end-to-end test of the lab's
 * memory on machines without a GPU.
 *   store_inject DATA_DIR LAB SIZE MEDIAN_MS SPEEDUP MILESTONE SHOWN
 * MILESTONE "-": the run earned none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: store_inject DATA_DIR LAB SIZE MEDIAN_MS SPEEDUP MILESTONE SHOWN\n");
        return 2;
    }
    store *s = NULL;
    char notice[512];
    cl_err e = {{0}};
    if (!store_open(argv[1], &s, notice, sizeof notice, &e)) {
        fprintf(stderr, "store_inject: %s\n", e.msg);
        return 1;
    }
    store_run_info info = {.lab = argv[2], .origin = "test", .kernel_path = "starter.cu",
                           .kernel_text = "// the kernel that was run\n"};
    run_result r;
    run_result_init(&r);
    snprintf(r.variant, sizeof r.variant, "exercise");
    snprintf(r.label, sizeof r.label, "your kernel");
    snprintf(r.size, sizeof r.size, "%s", argv[3]);
    r.kind = RK_EXERCISE;
    r.status = RS_CORRECT;
    r.median_ms = r.min_ms = r.max_ms = atof(argv[4]);
    r.samples = 20;
    r.speedup_cpu = atof(argv[5]);
    int64_t run = 0, row = 0;
    bool first = false;
    bool ok = store_run_begin(s, &info, &run, &e) && store_row_add(s, run, &r, NULL, &row, &e) &&
              (strcmp(argv[6], "-") == 0 ||
               store_milestone_reached(s, argv[2], argv[6], argv[7], run, row, &first, &e));
    if (!ok)
        fprintf(stderr, "store_inject: %s\n", e.msg);
    store_close(s);
    return ok ? 0 : 1;
}
