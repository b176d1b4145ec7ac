/* <stdlib.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cstdlib> here. */
#pragma once
#include <cstdlib>
