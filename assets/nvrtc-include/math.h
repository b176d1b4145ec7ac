/* <math.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cmath> here. */
#pragma once
#include <cmath>
