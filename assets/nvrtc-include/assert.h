/* <assert.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cassert> here. */
#pragma once
#include <cassert>
