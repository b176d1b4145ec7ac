/* nvml.h - what the driver's NVML says of a GPU's NVLinks: how many are
 * active and their common rate, the nominal figure the peer copies are
 * read against.  NVML is opened at run time (nvml.c). */
#ifndef CUDALAB_MGPU_NVML_H
#define CUDALAB_MGPU_NVML_H

#include <stdbool.h>
#include <stddef.h>

typedef struct mg_nvlinks {
    int active;                   /* active NVLinks of the GPU */
    double link_gbs;              /* each one's rate, each way, GB/s (0: no NVLink) */
} mg_nvlinks;

/* The NVLinks of CUDA device cuda_dev.  true with active 0 (and why saying
 * so) for a GPU without NVLink; false + why when NVML cannot tell. */
bool mg_nvml_nvlinks(int cuda_dev, mg_nvlinks *out, char *why, size_t n);

#endif
