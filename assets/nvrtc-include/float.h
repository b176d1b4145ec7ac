/* <float.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cfloat> here. */
#pragma once
#include <cfloat>
