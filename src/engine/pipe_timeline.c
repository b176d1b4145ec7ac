#include "engine/pipe_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "prof/trace.h"
#include "gpu/cudacheck.h"
#include "gpu/cupti.h"

bool pipeline_record(const char *title, timing_fn once, void *ud, cudaStream_t stream,
                     timeline *out, cl_err *err)
{
    timeline_init(out);
    if (!cupti_start(title, err))
        return false;
    cl_err run = {{0}};
    bool ok = once(ud, stream, &run);
    if (ok) {
        cudaError_t st = cudaDeviceSynchronize();
        if (st != cudaSuccess)
            ok = cudacheck_fail(&run, st, "cudaDeviceSynchronize()", __FILE__, __LINE__);
    }
    cl_err stop = {{0}};
    bool stopped = cupti_stop(out, &stop);
    if (!ok) {
        timeline_free(out);
        *err = run;
        return false;
    }
    if (!stopped) {
        *err = stop;
        return false;
    }
    return true;
}

bool pipeline_save_timeline(const timeline *tl, const char *which, char *msg, size_t msg_size,
                            cl_err *err)
{
    char path[CL_PATH_MAX], dir[CL_PATH_MAX];
    if (!pipeline_timeline_file(which, path, sizeof path, err))
        return false;
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (!paths_mkdir_p(dir, err) || !trace_write(tl, path, err))
        return false;
    uint64_t t0 = 0, t1 = 0;
    timeline_span(tl, &t0, &t1);
    char span[32];
    timeline_format_ns((double)(t1 - t0), span, sizeof span);
    snprintf(msg, msg_size, "%s%s: %s (%zu events over %s%s)", PIPELINE_TIMELINE_LOG, which, path,
             tl->nitems, span, tl->dropped ? ", some records lost" : "");
    return true;
}

