/* cudacheck.h - turning CUDA runtime statuses into cl_err messages.
 *
 * CUDA_CHECK(e, call) evaluates call; on failure it records the call's text,
 * file, line and cudaGetErrorString into e and returns false from the
 * enclosing function.  CUDA_CHECK_GOTO(e, call, label) jumps to label
 * instead, for functions that free resources on the way out.  Nothing here
 * exits the process.
 *
 * The code of the most recent failure is remembered (cudacheck_last), so a
 * caller several frames up can tell a sticky error - one that leaves the
 * context unusable - from an ordinary one. */
#ifndef CUDALAB_GPU_CUDACHECK_H
#define CUDALAB_GPU_CUDACHECK_H

#include <stdbool.h>
#include <cuda_runtime_api.h>

#include "core/err.h"

/* Records a failed call into err and remembers its code; returns false. */
bool cudacheck_fail(cl_err *err, cudaError_t st, const char *call, const char *file, int line);

/* The code of the last failure cudacheck_fail saw (cudaSuccess after reset). */
cudaError_t cudacheck_last(void);
void cudacheck_reset(void);

/* True for errors after which the CUDA context cannot be used again
 * (illegal address, launch failure, misaligned address, assert, ...). */
bool cudacheck_is_sticky(cudaError_t st);

/* A sentence a learner understands for a sticky error, naming the CUDA
 * error in brackets: "the kernel read or wrote memory outside its buffers
 * (illegal address)".  Other errors give cudaGetErrorString's text. */
const char *cudacheck_plain(cudaError_t st);

#define CUDA_CHECK(e, call)                                                  \
    do {                                                                     \
        cudaError_t cudacheck_st_ = (call);                                  \
        if (cudacheck_st_ != cudaSuccess)                                    \
            return cudacheck_fail((e), cudacheck_st_, #call, __FILE__, __LINE__); \
    } while (0)

#define CUDA_CHECK_GOTO(e, call, label)                                      \
    do {                                                                     \
        cudaError_t cudacheck_st_ = (call);                                  \
        if (cudacheck_st_ != cudaSuccess) {                                  \
            cudacheck_fail((e), cudacheck_st_, #call, __FILE__, __LINE__);   \
            goto label;                                                      \
        }                                                                    \
    } while (0)

/* After a kernel launch: the launch's own status, then cudaGetLastError. */
#define CUDA_CHECK_LAUNCH(e, call)                                           \
    do {                                                                     \
        CUDA_CHECK((e), (call));                                             \
        CUDA_CHECK((e), cudaGetLastError());                                 \
    } while (0)

#endif
