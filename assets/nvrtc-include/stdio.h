/* <stdio.h> for kernels cudalab compiles at run time with NVRTC: the same as
 * <cstdio> here. */
#pragma once
#include <cstdio>
