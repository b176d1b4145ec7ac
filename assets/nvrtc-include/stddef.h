/* <stddef.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cstddef> here. */
#pragma once
#include <cstddef>
