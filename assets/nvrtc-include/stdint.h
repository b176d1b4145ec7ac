/* <stdint.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cstdint> here. */
#pragma once
#include <cstdint>
