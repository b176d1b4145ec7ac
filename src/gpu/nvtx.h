/* nvtx.h - named ranges around the phases of an experiment.
 *
 * Each range is an NVTX range (so Nsight Systems shows it on its timeline)
 * and, while gpu/cupti.c records, a host range timed with CUPTI's clock (so
 * cudalab's own timeline shows it even when NVTX is not routed to CUPTI).
 * Ranges nest; every nvtx_push needs its nvtx_pop on the same thread. */
#ifndef CUDALAB_GPU_NVTX_H
#define CUDALAB_GPU_NVTX_H

#include <nvtx3/nvToolsExt.h>

#include "gpu/cupti.h"

static inline void nvtx_push(const char *name)
{
    nvtxRangePushA(name);
    cupti_range_begin(name);
}

static inline void nvtx_pop(void)
{
    cupti_range_end();
    nvtxRangePop();
}

#endif
