#include "gpu/cudacheck.h"

#include <string.h>

static cudaError_t g_last = cudaSuccess;

bool cudacheck_fail(cl_err *err, cudaError_t st, const char *call, const char *file, int line)
{
    g_last = st;
    const char *base = strrchr(file, '/');
    return err_set(err, "%s (%s failed at %s:%d)", cudaGetErrorString(st), call,
                   base ? base + 1 : file, line);
}

cudaError_t cudacheck_last(void)
{
    return g_last;
}

void cudacheck_reset(void)
{
    g_last = cudaSuccess;
}

bool cudacheck_is_sticky(cudaError_t st)
{
    switch (st) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorContained:
    case cudaErrorExternalDevice:
        return true;
    default:
        return false;
    }
}

const char *cudacheck_plain(cudaError_t st)
{
    switch (st) {
    case cudaErrorIllegalAddress:
        return "the kernel read or wrote memory outside its buffers (illegal address)";
    case cudaErrorMisalignedAddress:
        return "the kernel accessed memory at an address not aligned for its type "
               "(misaligned address)";
    case cudaErrorLaunchFailure:
        return "the kernel failed while running, often a bad pointer or an out-of-bounds "
               "shared-memory access (unspecified launch failure)";
    case cudaErrorLaunchTimeout:
        return "the kernel ran too long and the driver stopped it (launch timeout)";
    case cudaErrorAssert:
        return "an assert() inside the kernel failed (device-side assert)";
    case cudaErrorHardwareStackError:
        return "the kernel overflowed its call stack, often deep recursion or large local "
               "arrays (hardware stack error)";
    case cudaErrorIllegalInstruction:
        return "the kernel executed an invalid instruction (illegal instruction)";
    case cudaErrorInvalidAddressSpace:
        return "the kernel used a pointer in the wrong memory space, e.g. a shared-memory "
               "address as a global one (invalid address space)";
    case cudaErrorInvalidPc:
        return "the kernel jumped to an invalid program counter (invalid PC)";
    case cudaErrorECCUncorrectable:
        return "the GPU reported an uncorrectable memory (ECC) error";
    default:
        return cudaGetErrorString(st);
    }
}
