/* devinfo.h - what the worker learned about the GPU, as plain data.
 *
 * Filled by gpu/device.c inside the worker, sent to the parent in the
 * worker's hello message, shown by the TUI, `doctor` and `run`.  When no
 * usable device exists, present is false and reason says why in words a
 * learner can act on ("no CUDA device found: CUDA driver is not installed"). */
#ifndef CUDALAB_CORE_DEVINFO_H
#define CUDALAB_CORE_DEVINFO_H

#include <stdbool.h>

typedef struct device_info {
    bool present;
    char reason[256];          /* why not present; empty when present */
    int ordinal;
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    double mem_total_gib, mem_free_gib;
    double l2_mib;
    double sm_clock_mhz, mem_clock_mhz;
    int bus_width_bits;
    int driver_version, runtime_version;  /* e.g. 13000 */
    char nvrtc_version[16];    /* "13.0"; empty when NVRTC is not usable */
    double peak_bw_theory_gbs;   /* 2 x mem clock x bus width / 8 */
    double peak_fp32_tflops;     /* SMs x lanes x 2 x clock */
    double peak_bw_measured_gbs; /* device-to-device copy, read + write; 0 = not measured */
    double peak_bw_read_gbs;     /* read-only stream; 0 = not measured */
    bool peak_bw_cached;         /* measured earlier and read from the data folder */
} device_info;

#endif
