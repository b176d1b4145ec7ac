/* device.h - what the CUDA device is and what it can do on paper. */
#ifndef CUDALAB_GPU_DEVICE_H
#define CUDALAB_GPU_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/devinfo.h"
#include "core/err.h"

/* Probes device `ordinal`, makes it current and fills out.  Without a
 * driver or a device, out->present is false and out->reason reads
 * "no CUDA device found: <CUDA's words>".  note (may be NULL) receives a
 * remark worth logging, e.g. an architecture missing from the FP32 table;
 * it is empty when there is nothing to say.  Returns out->present. */
bool device_probe(int ordinal, device_info *out, char *note, size_t note_len);

/* FP32 lanes per SM for compute capability major.minor; *known is false
 * (and 128 returned) for an architecture the table does not list. */
int device_fp32_lanes(int major, int minor, bool *known);
/* 2 x memory clock x bus width / 8, in GB/s (10^9 bytes); 0 when unknown. */
double device_bw_theory_gbs(double mem_clock_khz, int bus_width_bits);
/* SMs x lanes x 2 (FMA) x SM clock, in TFLOP/s; 0 when unknown. */
double device_fp32_peak_tflops(int sm_count, int lanes, double sm_clock_khz);
/* PCI address of device `ordinal` ("0000:65:00.0"). */
bool device_pci_bus_id(int ordinal, char *out, size_t out_size, cl_err *err);

#endif
