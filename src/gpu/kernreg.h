/* kernreg.h - the kernel registry: launchers and raw kernels by name.
 *
 * The engine and the Lua GPU API look names up here: first the shipped
 * tables (kernels_find, kernels_raw_find), then kernels added at run time
 * (kernels compiled for one session, or the deliberately faulting kernels
 * of kernels/faults.cu in tests).  The tables added must outlive their use. */
#ifndef CUDALAB_GPU_KERNREG_H
#define CUDALAB_GPU_KERNREG_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels.h"

#define KERNREG_MAX 32

/* Adds count launchers; false when the table is full (none added then). */
bool kernreg_add(const shipped_kernel *kernels, size_t count);
bool kernreg_add_raw(const raw_kernel *kernels, size_t count);
void kernreg_clear(void);

const shipped_kernel *kernreg_find(const char *name);
const raw_kernel *kernreg_find_raw(const char *name);

#endif
