/* nccl.h - NCCL, opened at run time.
 *
 * cudalab never links libnccl: the binary starts where NCCL is missing, and
 * only the rows that call it say so.  The header (nccl.h) is found when
 * cudalab is built (CUDALAB_HAVE_NCCL); the library, libnccl.so.2, when a
 * rank first needs it, in this order: the file $CUDALAB_NCCL_LIB names,
 * $NCCL_ROOT/lib (and lib64), the dynamic loader's own path, then the
 * nvidia-nccl-cu13 wheel among the packages of the python3 cudalab uses
 * (lab/pyenv.h: $CUDALAB_PYTHON, else python3 from $PATH).  Setting
 * CUDALAB_MGPU_NO_NCCL=1 makes it act as if none were found (the tests'
 * way to the message without NCCL).  Every call's ncclResult_t is checked
 * and reported with ncclGetErrorString. */
#ifndef CUDALAB_MGPU_NCCL_H
#define CUDALAB_MGPU_NCCL_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "core/err.h"

#define MG_NCCL_ID_BYTES 128          /* NCCL_UNIQUE_ID_BYTES */
#define MG_NCCL_INSTALL                                                                 \
    "install the nvidia-nccl-cu13 wheel (pip install nvidia-nccl-cu13) or the libnccl2 " \
    "package, or set NCCL_ROOT (or CUDALAB_NCCL_LIB) to where libnccl.so.2 is"

/* Loads NCCL once a process: true with its version ("2.28.9") and where it
 * came from, or false with why not (what was searched, what to install). */
bool mg_nccl_load(char *version, size_t vn, char *from, size_t fn, char *why, size_t wn);

/* Rank 0's ncclGetUniqueId, to hand to the other ranks. */
bool mg_nccl_unique_id(unsigned char id[MG_NCCL_ID_BYTES], cl_err *err);

typedef struct mg_nccl_comm mg_nccl_comm;

/* This process's communicator as rank of nranks (ncclCommInitRank on the
 * current device); returns only when every rank has joined.  NULL + err. */
mg_nccl_comm *mg_nccl_init(int nranks, const unsigned char id[MG_NCCL_ID_BYTES], int rank,
                           cl_err *err);
/* ncclAllReduce of count floats, sum, out of place, on stream. */
bool mg_nccl_allreduce(mg_nccl_comm *comm, const float *send, float *recv, size_t count,
                       cudaStream_t stream, cl_err *err);
/* The communicator's asynchronous error (ncclCommGetAsyncError), if any. */
bool mg_nccl_healthy(mg_nccl_comm *comm, cl_err *err);
/* ncclCommAbort (after an error: it does not wait for the other ranks),
 * and frees comm.  NULL is ignored. */
void mg_nccl_abort(mg_nccl_comm *comm);
/* ncclCommDestroy (the normal end), and frees comm; false + err when NCCL
 * reports an error. */
bool mg_nccl_destroy(mg_nccl_comm *comm, cl_err *err);

#endif
