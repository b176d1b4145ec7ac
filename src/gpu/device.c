#include "gpu/device.h"

#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

#include "gpu/cudacheck.h"
#include "gpu/nvrtc.h"

int device_fp32_lanes(int major, int minor, bool *known)
{
    bool k = true;
    int lanes = 128;
    switch (major) {
    case 5:
        lanes = 128;
        break;
    case 6:
        lanes = minor == 0 ? 64 : 128;
        break;
    case 7:
        lanes = 64;
        break;
    case 8:
        lanes = minor == 0 ? 64 : 128;
        break;
    case 9:
    case 10:
    case 12:
        lanes = 128;
        break;
    default:
        k = false;
        lanes = 128;
        break;
    }
    if (known)
        *known = k;
    return lanes;
}

double device_bw_theory_gbs(double mem_clock_khz, int bus_width_bits)
{
    if (mem_clock_khz <= 0.0 || bus_width_bits <= 0)
        return 0.0;
    return 2.0 * mem_clock_khz * 1e3 * (double)bus_width_bits / 8.0 / 1e9;
}

double device_fp32_peak_tflops(int sm_count, int lanes, double sm_clock_khz)
{
    if (sm_count <= 0 || lanes <= 0 || sm_clock_khz <= 0.0)
        return 0.0;
    return (double)sm_count * (double)lanes * 2.0 * sm_clock_khz * 1e3 / 1e12;
}

bool device_pci_bus_id(int ordinal, char *out, size_t out_size, cl_err *err)
{
    char buf[64];
    CUDA_CHECK(err, cudaDeviceGetPCIBusId(buf, (int)sizeof buf, ordinal));
    snprintf(out, out_size, "%s", buf);
    return true;
}

static void absent(device_info *out, cudaError_t st, const char *hint)
{
    if (st == cudaErrorMemoryAllocation && !hint[0])
        hint = ": a GPU is there, but other processes hold its memory (nvidia-smi lists them); "
               "cudalab needs a few hundred MiB free";
    out->present = false;
    snprintf(out->reason, sizeof out->reason, "no CUDA device found: %s%s",
             cudaGetErrorString(st), hint);
    cudaGetLastError();
}

static int attr(enum cudaDeviceAttr a, int ordinal, cudaError_t *st)
{
    int v = 0;
    cudaError_t s = cudaDeviceGetAttribute(&v, a, ordinal);
    if (s != cudaSuccess && *st == cudaSuccess)
        *st = s;
    return v;
}

/* The driver's, the runtime's and NVRTC's versions (0 or "" when
 * unknown); returns the driver's. */
static int read_versions(device_info *out)
{
    int drv = 0, rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess)
        drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
        rt = 0;
    out->driver_version = drv;
    out->runtime_version = rt;
    if (!nvrtc_version_text(out->nvrtc_version, sizeof out->nvrtc_version, NULL))
        out->nvrtc_version[0] = '\0';
    return drv;
}

/* Makes device ordinal current once it is known to be visible; false with
 * out->reason set when it cannot be (drv: the driver's version, for the
 * hint). */
static bool make_current(int ordinal, int drv, device_info *out)
{
    int count = 0;
    cudaError_t st = cudaGetDeviceCount(&count);
    if (st != cudaSuccess) {
        const char *hint = "";
        if (st == cudaErrorInsufficientDriver && drv == 0)
            hint = " (no NVIDIA driver is installed)";
        else if (st == cudaErrorInsufficientDriver)
            hint = " (update the NVIDIA driver)";
        absent(out, st, hint);
        return false;
    }
    if (count <= 0) {
        absent(out, cudaErrorNoDevice, "");
        return false;
    }
    if (ordinal < 0 || ordinal >= count) {
        out->present = false;
        snprintf(out->reason, sizeof out->reason,
                 "no CUDA device found: device %d requested, %d visible", ordinal, count);
        return false;
    }
    st = cudaSetDevice(ordinal);
    if (st == cudaSuccess)
        st = cudaFree(NULL);
    if (st != cudaSuccess) {
        absent(out, st, "");
        return false;
    }
    return true;
}

/* The device's name, compute capability, SMs, L2, clocks, bus width and
 * memory into out, and its SM and memory clocks in kHz; false with
 * out->reason set when CUDA cannot say. */
static bool read_properties(int ordinal, device_info *out, int *sm_khz, int *mem_khz)
{
    struct cudaDeviceProp p;
    cudaError_t st = cudaGetDeviceProperties(&p, ordinal);
    if (st != cudaSuccess) {
        absent(out, st, "");
        return false;
    }
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->cc_major = p.major;
    out->cc_minor = p.minor;

    cudaError_t ast = cudaSuccess;
    out->sm_count = attr(cudaDevAttrMultiProcessorCount, ordinal, &ast);
    int l2 = attr(cudaDevAttrL2CacheSize, ordinal, &ast);
    *sm_khz = attr(cudaDevAttrClockRate, ordinal, &ast);
    *mem_khz = attr(cudaDevAttrMemoryClockRate, ordinal, &ast);
    out->bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, ordinal, &ast);
    if (ast != cudaSuccess) {
        absent(out, ast, "");
        return false;
    }
    out->l2_mib = (double)l2 / (1024.0 * 1024.0);
    out->sm_clock_mhz = *sm_khz / 1e3;
    out->mem_clock_mhz = *mem_khz / 1e3;

    size_t free_b = 0, total_b = 0;
    st = cudaMemGetInfo(&free_b, &total_b);
    if (st != cudaSuccess) {
        absent(out, st, "");
        return false;
    }
    out->mem_total_gib = (double)total_b / (1024.0 * 1024.0 * 1024.0);
    out->mem_free_gib = (double)free_b / (1024.0 * 1024.0 * 1024.0);
    return true;
}

/* The peak figures on paper, from the clocks (kHz) and out's compute
 * capability; note (may be NULL) says when the FP32 lane count is a guess. */
static void paper_peaks(device_info *out, int sm_khz, int mem_khz, char *note, size_t note_len)
{
    bool known = true;
    int lanes = device_fp32_lanes(out->cc_major, out->cc_minor, &known);
    if (!known && note && note_len)
        snprintf(note, note_len,
                 "compute capability %d.%d is not in the FP32 lane table: assuming 128 "
                 "FP32 lanes per SM for the peak figure",
                 out->cc_major, out->cc_minor);
    out->peak_bw_theory_gbs = device_bw_theory_gbs((double)mem_khz, out->bus_width_bits);
    out->peak_fp32_tflops = device_fp32_peak_tflops(out->sm_count, lanes, (double)sm_khz);
}

bool device_probe(int ordinal, device_info *out, char *note, size_t note_len)
{
    memset(out, 0, sizeof *out);
    out->ordinal = ordinal;
    if (note && note_len)
        note[0] = '\0';

    int drv = read_versions(out);
    if (!make_current(ordinal, drv, out))
        return false;
    int sm_khz = 0, mem_khz = 0;
    if (!read_properties(ordinal, out, &sm_khz, &mem_khz))
        return false;
    paper_peaks(out, sm_khz, mem_khz, note, note_len);
    out->present = true;
    out->reason[0] = '\0';
    return true;
}
