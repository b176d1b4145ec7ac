/* which.h - finding external tools (compute-sanitizer, ncu, editors). */
#ifndef CUDALAB_CORE_WHICH_H
#define CUDALAB_CORE_WHICH_H

#include <stdbool.h>
#include <stddef.h>

/* Looks for an executable called name in $PATH, then in the CUDA toolkit's
 * bin folders ($CUDA_HOME/bin, /usr/local/cuda/bin) and Nsight Compute's
 * install folders.  Writes the full path to out. */
bool which_tool(const char *name, char *out, size_t cap);

#endif
