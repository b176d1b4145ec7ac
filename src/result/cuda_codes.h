/* cuda_codes.h - the CUDA runtime error codes cudalab tells apart, as
 * plain numbers, for code that includes no CUDA header (the parent's
 * diagnosis reads a row's or a fault's `code`).  The values are the CUDA
 * runtime's cudaError_t enumerators; tests/engine checks them against
 * cuda_runtime_api.h. */
#ifndef CUDALAB_RESULT_CUDA_CODES_H
#define CUDALAB_RESULT_CUDA_CODES_H

enum {
    CUDA_CODE_MEMORY_ALLOCATION = 2,        /* cudaErrorMemoryAllocation */
    CUDA_CODE_INVALID_CONFIGURATION = 9,    /* cudaErrorInvalidConfiguration */
    CUDA_CODE_INSUFFICIENT_DRIVER = 35,     /* cudaErrorInsufficientDriver */
    CUDA_CODE_NO_DEVICE = 100,              /* cudaErrorNoDevice */
    CUDA_CODE_ILLEGAL_ADDRESS = 700,        /* cudaErrorIllegalAddress */
    CUDA_CODE_LAUNCH_OUT_OF_RESOURCES = 701, /* cudaErrorLaunchOutOfResources */
    CUDA_CODE_LAUNCH_TIMEOUT = 702,         /* cudaErrorLaunchTimeout */
    CUDA_CODE_ASSERT = 710,                 /* cudaErrorAssert */
    CUDA_CODE_HARDWARE_STACK_ERROR = 714,   /* cudaErrorHardwareStackError */
    CUDA_CODE_ILLEGAL_INSTRUCTION = 715,    /* cudaErrorIllegalInstruction */
    CUDA_CODE_MISALIGNED_ADDRESS = 716,     /* cudaErrorMisalignedAddress */
    CUDA_CODE_INVALID_ADDRESS_SPACE = 717,  /* cudaErrorInvalidAddressSpace */
    CUDA_CODE_INVALID_PC = 718,             /* cudaErrorInvalidPc */
    CUDA_CODE_LAUNCH_FAILURE = 719,         /* cudaErrorLaunchFailure */
};

#endif
