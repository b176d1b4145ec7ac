/* <string.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cstring> here. */
#pragma once
#include <cstring>
