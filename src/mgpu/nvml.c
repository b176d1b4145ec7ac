/* nvml.c - a GPU's NVLinks and their rate as the driver reports them,
 * through NVML (mgpu/nvml.h).  libnvidia-ml.so.1 ships with the driver,
 * not with the CUDA toolkit, and the toolkit carries no nvml.h: the few
 * entry points used here are declared below, after NVML's public header,
 * and looked up at run time, so that cudalab builds and runs where NVML is
 * missing and then says so. */
#include "mgpu/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>

/* NVML's own definitions (nvml.h), the ones used here. */
typedef int nvml_return;                       /* nvmlReturn_t */
#define NVML_SUCCESS 0
#define NVML_FEATURE_ENABLED 1                 /* nvmlEnableState_t */
#define NVML_VALUE_TYPE_UNSIGNED_INT 1         /* nvmlValueType_t */
#define NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define NVML_FI_DEV_NVLINK_GET_SPEED 164         /* one link's (scope: the link) */
#define NVML_NVLINK_MAX_LINKS 18
typedef struct nvml_device *nvml_device;       /* nvmlDevice_t */
typedef struct nvml_field_value {              /* nvmlFieldValue_t */
    unsigned int field_id;
    unsigned int scope_id;
    long long timestamp;
    long long latency_us;
    int value_type;
    nvml_return ret;
    union {
        double d;
        unsigned int ui;
        unsigned long ul;
        unsigned long long ull;
        long long sll;
    } value;
} nvml_field_value;

static struct {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*by_bus_id)(const char *bus_id, nvml_device *dev);
    nvml_return (*link_state)(nvml_device dev, unsigned int link, int *active);
    nvml_return (*field_values)(nvml_device dev, int count, nvml_field_value *values);
    const char *(*error_string)(nvml_return rc);
} nv;

static const char *words(nvml_return rc)
{
    const char *w = nv.error_string ? nv.error_string(rc) : NULL;
    return w ? w : "unknown error";
}

/* The library and its entry points, once; false + why. */
static bool open_nvml(char *why, size_t n)
{
    static void *h;
    static bool tried;
    static char failed[256];
    if (tried) {
        if (!h)
            snprintf(why, n, "%s", failed);
        return h != NULL;
    }
    tried = true;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failed, sizeof failed, "NVML (libnvidia-ml.so.1, part of the NVIDIA driver) "
                                        "cannot be opened");
        snprintf(why, n, "%s", failed);
        return false;
    }
    static const struct { const char *name; void **slot; } syms[] = {
        {"nvmlInit_v2", (void **)&nv.init},
        {"nvmlShutdown", (void **)&nv.shutdown},
        {"nvmlDeviceGetHandleByPciBusId_v2", (void **)&nv.by_bus_id},
        {"nvmlDeviceGetNvLinkState", (void **)&nv.link_state},
        {"nvmlDeviceGetFieldValues", (void **)&nv.field_values},
        {"nvmlErrorString", (void **)&nv.error_string},
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].slot = dlsym(lib, syms[i].name);
        if (!*syms[i].slot) {
            snprintf(failed, sizeof failed, "NVML has no %s: too old a driver", syms[i].name);
            snprintf(why, n, "%s", failed);
            memset(&nv, 0, sizeof nv);
            dlclose(lib);
            return false;
        }
    }
    h = lib;
    return true;
}

/* dev's active links and their common rate, NVML initialised. */
static bool query(int cuda_dev, mg_nvlinks *out, char *why, size_t n)
{
    char bus[32];
    cudaError_t ce = cudaDeviceGetPCIBusId(bus, (int)sizeof bus, cuda_dev);
    if (ce != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, n, "cudaDeviceGetPCIBusId(GPU %d) failed: %s", cuda_dev,
                 cudaGetErrorString(ce));
        return false;
    }
    nvml_device d;
    nvml_return rc = nv.by_bus_id(bus, &d);
    if (rc != NVML_SUCCESS) {
        snprintf(why, n, "NVML does not know GPU %d (%s): %s", cuda_dev, bus, words(rc));
        return false;
    }
    int first_active = -1;
    for (unsigned int link = 0; link < NVML_NVLINK_MAX_LINKS; link++) {
        int active = 0;
        /* a link the GPU does not have answers with an error: the end */
        if (nv.link_state(d, link, &active) != NVML_SUCCESS)
            break;
        if (active == NVML_FEATURE_ENABLED && out->active++ == 0)
            first_active = (int)link;
    }
    if (out->active == 0) {
        snprintf(why, n, "GPU %d has no active NVLink (NVML): it reaches other GPUs over PCIe",
                 cuda_dev);
        return true;
    }
    /* the common rate of the active links; drivers that do not give it
     * give each link's (the first active one stands for all) */
    nvml_field_value fv;
    memset(&fv, 0, sizeof fv);
    fv.field_id = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
    rc = nv.field_values(d, 1, &fv);
    if (rc == NVML_SUCCESS && fv.ret != NVML_SUCCESS) {
        memset(&fv, 0, sizeof fv);
        fv.field_id = NVML_FI_DEV_NVLINK_GET_SPEED;
        fv.scope_id = (unsigned int)first_active;
        rc = nv.field_values(d, 1, &fv);
    }
    if (rc != NVML_SUCCESS || fv.ret != NVML_SUCCESS) {
        snprintf(why, n, "NVML gives no NVLink speed for GPU %d: %s", cuda_dev,
                 words(rc != NVML_SUCCESS ? rc : fv.ret));
        return false;
    }
    double mbs = fv.value_type == NVML_VALUE_TYPE_UNSIGNED_INT         ? (double)fv.value.ui
                 : fv.value_type == NVML_VALUE_TYPE_UNSIGNED_LONG      ? (double)fv.value.ul
                 : fv.value_type == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG ? (double)fv.value.ull
                                                                       : 0.0;
    if (!(mbs > 0.0)) {
        snprintf(why, n, "NVML's NVLink speed for GPU %d is not a rate (field %u, type %d)",
                 cuda_dev, fv.field_id, fv.value_type);
        return false;
    }
    out->link_gbs = mbs / 1e3;   /* MB/s, each way */
    return true;
}

bool mg_nvml_nvlinks(int cuda_dev, mg_nvlinks *out, char *why, size_t n)
{
    memset(out, 0, sizeof *out);
    why[0] = '\0';
    if (!open_nvml(why, n))
        return false;
    nvml_return rc = nv.init();
    if (rc != NVML_SUCCESS) {
        snprintf(why, n, "nvmlInit failed: %s", words(rc));
        return false;
    }
    bool ok = query(cuda_dev, out, why, n);
    rc = nv.shutdown();
    if (ok && rc != NVML_SUCCESS) {
        snprintf(why, n, "nvmlShutdown failed: %s", words(rc));
        return false;
    }
    return ok;
}
