/* <limits.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <climits> here. */
#pragma once
#include <climits>
