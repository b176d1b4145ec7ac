/* engine_kernels.h - launchers and raw kernels beyond the shipped tables.
 *
 * The engine and the Lua GPU API look names up here: first the shipped
 * tables (kernels_find, kernels_raw_find), then kernels added at run time
 * (kernels compiled for one session, or the deliberately faulting kernels
 * of kernels/faults.cu in tests).  The tables added must outlive their use. */
#ifndef CUDALAB_WORKER_ENGINE_KERNELS_H
#define CUDALAB_WORKER_ENGINE_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels.h"

#define ENGINE_KERNELS_MAX 32

/* Adds n launchers; false when the table is full (none added then). */
bool engine_kernels_add(const shipped_kernel *k, size_t n);
bool engine_kernels_add_raw(const raw_kernel *k, size_t n);
void engine_kernels_clear(void);

const shipped_kernel *engine_kernels_find(const char *name);
const raw_kernel *engine_kernels_find_raw(const char *name);

#endif
