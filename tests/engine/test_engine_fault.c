/* A kernel that writes far outside its buffer breaks the CUDA context:
 * engine_run must return false with a "cuda" fault in plain words, so the
 * worker exits and is restarted.  Skips (exit 77) without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/devinfo.h"
#include "kernels.h"
#include "support.h"
#include "engine/engine.h"
#include "gpu/kernreg.h"

const shipped_kernel *faults_table(size_t *n);

static int rows;

static void on_result(void *ud, const run_result *r)
{
    (void)ud;
    rows++;
    printf("row %s: %s: %s\n", r->variant, result_status_name(r->status), r->message);
}

int main(void)
{
    char data[CL_PATH_MAX];
    if (ts_tmpdir(data, sizeof data, "engine-fault"))
        ts_data_home(data);
    device_info d;
    engine_probe(&d);
    if (!d.present) {
        printf("SKIP: %s\n", d.reason);
        ts_rm_rf(data);
        return 77;
    }
    size_t n = 0;
    const shipped_kernel *k = faults_table(&n);
    if (!kernreg_add(k, n)) {
        printf("FAIL: cannot register the faulting kernel\n");
        return 1;
    }
    run_request req;
    memset(&req, 0, sizeof req);
    req.run = 3;
    snprintf(req.problem, sizeof req.problem, "reduce_sum");
    snprintf(req.variants[0].id, sizeof req.variants[0].id, "oob");
    snprintf(req.variants[0].kernel, sizeof req.variants[0].kernel, "fault_oob_write");
    req.nvariants = 1;
    snprintf(req.sizes[0], sizeof req.sizes[0], "1024");
    req.nsizes = 1;
    req.budget_s = 0.02;

    engine_sink sink = {NULL, on_result, NULL, NULL};
    run_fault f;
    memset(&f, 0, sizeof f);
    bool ok = engine_run(&req, &sink, &f);
    printf("engine_run: %s; fault run %d variant '%s' cause '%s': %s\n", ok ? "true" : "false",
           f.run, f.variant, f.cause, f.message);
    if (!ts_rm_rf(data))
        printf("could not remove %s\n", data);
    if (ok || strcmp(f.cause, "cuda") != 0 || f.run != 3 || strcmp(f.variant, "oob") != 0 ||
        rows != 0)
        return 1;
    if (!strstr(f.message, "(illegal address)") && !strstr(f.message, "(unspecified launch failure)"))
        return 1;
    return 0;
}
