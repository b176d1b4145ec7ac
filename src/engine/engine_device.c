#include "engine/engine.h"
#include "core/strfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include "gpu/buffer.h"
#include "gpu/device.h"
#include "gpu/peak.h"
#include "luagpu/luagpu.h"
#include "kernels.h"
#include "engine/engine_internal.h"

engine_state engine_g;
static char skip_peak_why[128];

static bool under_sanitizer;

void engine_under_sanitizer(void)
{
    under_sanitizer = true;
    luagpu_fill_new_buffers(false);
}

bool engine_is_under_sanitizer(void)
{
    return under_sanitizer;
}

void engine_skip_peak(const char *why)
{
    snprintf(skip_peak_why, sizeof skip_peak_why, "%s", why ? why : "");
}

/* ---- the device ------------------------------------------------------ */

/* The most device memory the printf buffer takes. */
#define PRINTF_FIFO_MAX ((size_t)256 << 20)

/* Device printf writes into a buffer that the host empties after the
 * launch; once one launch's lines overflow it, every further printf is
 * very slow.  On an H200 a kernel printing one line from each of 2^18
 * threads took 8.1 s with the default 8 MiB and 97 ms with 64 MiB; from
 * 2^20 threads, 315 ms with 256 MiB.  printf from every thread is a
 * learner's first debugging: the buffer gets 1/32 of the device's memory,
 * at most 256 MiB, before any kernel runs (it cannot change after one
 * that prints).  A refusal is a note; printf keeps its default. */
static void widen_printf_fifo(void)
{
    double total = engine_g.dev.mem_total_gib * 1024.0 * 1024.0 * 1024.0;
    size_t want = total / 32.0 < (double)PRINTF_FIFO_MAX ? (size_t)(total / 32.0) : PRINTF_FIFO_MAX;
    size_t have = 0;
    cudaError_t st = cudaDeviceGetLimit(&have, cudaLimitPrintfFifoSize);
    if (st == cudaSuccess && have >= want)
        return;
    if (st == cudaSuccess)
        st = cudaDeviceSetLimit(cudaLimitPrintfFifoSize, want);
    if (st != cudaSuccess) {
        (void)cudaGetLastError();
        size_t len = strlen(engine_g.note);
        strfmt_append(engine_g.note, sizeof engine_g.note, len,
                      "%sprintf keeps CUDA's default buffer (%s): many threads printing will "
                      "be slow",
                      len ? "; " : "", cudaGetErrorString(st));
    }
}

void engine_probe(device_info *out)
{
    char note[256] = "";
    if (!engine_g.probed) {
        memset(&engine_g, 0, sizeof engine_g);
        engine_g.probed = true;
        device_probe(0, &engine_g.dev, note, sizeof note);
        if (note[0])
            snprintf(engine_g.note, sizeof engine_g.note, "%s", note);
        if (engine_g.dev.present) {
            cl_err e = {{0}};
            widen_printf_fifo();
            cudaError_t st = cudaStreamCreateWithFlags(&engine_g.stream, cudaStreamNonBlocking);
            if (st != cudaSuccess) {
                engine_g.dev.present = false;
                snprintf(engine_g.dev.reason, sizeof engine_g.dev.reason,
                         "no CUDA device found: cannot create a stream: %s",
                         cudaGetErrorString(st));
            } else {
                engine_g.have_stream = true;
                if (skip_peak_why[0]) {
                    strfmt_append(engine_g.note, sizeof engine_g.note, strlen(engine_g.note),
                                  "%sthe copy bandwidth was not measured (%s)",
                                  engine_g.note[0] ? "; " : "", skip_peak_why);
                } else {
                    nvtxRangePushA("peak bandwidth");
                    if (!peak_get(&engine_g.dev, engine_g.stream, false, &e))
                        strfmt_append(engine_g.note, sizeof engine_g.note,
                                      strlen(engine_g.note),
                                      "%sthe copy bandwidth could not be measured: %s",
                                      engine_g.note[0] ? "; " : "", e.msg);
                    nvtxRangePop();
                }
            }
        }
    }
    *out = engine_g.dev;
}

void engine_shutdown(void)
{
    if (!engine_g.probed)
        return;
    buffer_free(&engine_g.flush);
    if (engine_g.have_stream)
        cudaStreamDestroy(engine_g.stream);
    engine_g.have_stream = false;
    if (engine_g.dev.present)
        kernels_shutdown();
    engine_g.probed = false;
}

/* A buffer of twice the L2, for flushing between repetitions; NULL when it
 * cannot be had (the timing then runs warm and says so). */
void *engine_device_flush(size_t *bytes)
{
    if (!engine_g.flush_tried) {
        engine_g.flush_tried = true;
        size_t l2 = (size_t)(engine_g.dev.l2_mib * MIB);
        if (l2 > 0 && !buffer_alloc(&engine_g.flush, 2 * l2, NULL))
            cudaGetLastError();
    }
    *bytes = engine_g.flush.bytes;
    return engine_g.flush.ptr;
}
