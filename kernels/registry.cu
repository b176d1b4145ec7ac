// registry.cu - placeholder tables; each topic file adds its rungs.
#include "kernels.h"
#include <string.h>

extern "C" const shipped_kernel *kernels_shipped(size_t *n) { *n = 0; return nullptr; }
extern "C" const shipped_kernel *kernels_find(const char *name) { (void)name; return nullptr; }
extern "C" size_t kernels_reduce_scratch_bytes(size_t n) { (void)n; return 0; }
extern "C" const char *kernels_library_error(void) { return ""; }
extern "C" void kernels_shutdown(void) {}
extern "C" const raw_kernel *kernels_raw(size_t *n) { *n = 0; return nullptr; }
extern "C" const raw_kernel *kernels_raw_find(const char *name) { (void)name; return nullptr; }
