/* peak.h - the memory bandwidth this device really reaches: a copy, and a
 * read-only stream.
 *
 * Measured once: the copy with cudaMemcpyAsync between two buffers much
 * larger than the L2 (bytes read + bytes written over the median time),
 * the stream with kernels/peak.cu reading one such buffer (bytes read over
 * the median time); both cached as JSON in the data folder.  The cache entry is keyed by device name, PCI bus
 * id and driver version: another card in that slot, or a new driver, makes
 * the next probe measure again. */
#ifndef CUDALAB_GPU_PEAK_H
#define CUDALAB_GPU_PEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "core/devinfo.h"
#include "core/err.h"

typedef struct peak_key {
    char name[128];
    char pci[32];
    int driver;
} peak_key;

typedef struct peak_figures {
    double copy_gbs;             /* device-to-device copy, read + write */
    double read_gbs;             /* read-only stream */
} peak_figures;

/* Pure: finds key in the cache document json (may be NULL or malformed: then
 * nothing is found).  true and *figures when an entry matches exactly and
 * holds both figures. */
bool peak_cache_lookup(const char *json, const peak_key *key, peak_figures *figures);
/* Pure: returns a new cache document (malloc'd) holding json's entries except
 * any for the same PCI slot, plus {key, figures, when}.  NULL when out of
 * memory. */
char *peak_cache_update(const char *json, const peak_key *key, const peak_figures *figures,
                        long long when);
/* <data folder>/peak_bandwidth.json */
bool peak_cache_path(char *out, size_t out_size, cl_err *err);

/* Bytes for each of the two copy buffers: min(512 MiB, a quarter of
 * free_bytes), at least 8 x L2 when free memory allows, rounded to 1 MiB. */
size_t peak_copy_bytes(size_t free_bytes, size_t l2_bytes);
/* Measures the device-to-device copy and the read-only stream bandwidth on
 * stream in GB/s. */
bool peak_measure(cudaStream_t stream, size_t l2_bytes, peak_figures *figures, cl_err *err);

/* Fills info->peak_bw_measured_gbs and peak_bw_read_gbs from the cache or
 * by measuring (force: always measure) and stores a new measurement.  A cache that cannot be
 * written is not an error; a failed measurement is. */
bool peak_get(device_info *info, cudaStream_t stream, bool force, cl_err *err);

#endif
