/* nccl.c - NCCL's functions from libnccl.so.2 (mgpu/nccl.h).
 *
 * With nccl.h at build time (CUDALAB_HAVE_NCCL) the table's types are the
 * header's own, so a call through it is checked as a direct call would
 * be; without it every call says NCCL was not there when cudalab was
 * built. */
#include "mgpu/nccl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/paths.h"
#include "core/strfmt.h"
#include "mgpu/nccl_find.h"

#ifdef CUDALAB_HAVE_NCCL

#include <dlfcn.h>
#include <nccl.h>

_Static_assert(sizeof(ncclUniqueId) == MG_NCCL_ID_BYTES, "ncclUniqueId changed size");

static struct nccl_fns {
    bool tried, ok;
    char version[32], from[1024], why[2048];
    __typeof__(ncclGetVersion) *GetVersion;
    __typeof__(ncclGetErrorString) *GetErrorString;
    __typeof__(ncclGetUniqueId) *GetUniqueId;
    __typeof__(ncclCommInitRank) *CommInitRank;
    __typeof__(ncclAllReduce) *AllReduce;
    __typeof__(ncclCommGetAsyncError) *CommGetAsyncError;
    __typeof__(ncclCommAbort) *CommAbort;
    __typeof__(ncclCommDestroy) *CommDestroy;
} fns;

struct mg_nccl_comm {
    ncclComm_t comm;
};

/* Records a failed NCCL call: its text, file:line and NCCL's words. */
static bool nccl_fail(cl_err *e, ncclResult_t rc, const char *call, const char *file, int line)
{
    const char *what = fns.GetErrorString ? fns.GetErrorString(rc) : "unknown error";
    return err_set(e, "%s failed at %s:%d: %s (ncclResult_t %d)", call, paths_base_name(file), line,
                   what, (int)rc);
}

#define NCCL_CHECK(e, call)                                                    \
    do {                                                                       \
        ncclResult_t nccl_rc_ = (call);                                        \
        if (nccl_rc_ != ncclSuccess)                                           \
            return nccl_fail((e), nccl_rc_, #call, __FILE__, __LINE__);        \
    } while (0)

static bool bind(void *h, const char *name, void **slot, char *why, size_t wn)
{
    *slot = dlsym(h, name);
    if (!*slot)
        snprintf(why, wn, "%s has no %s: not a usable NCCL 2 library", fns.from, name);
    return *slot != NULL;
}

/* The table from an opened library; false + fns.why. */
static bool bind_all(void *h)
{
#define BIND(f) bind(h, "nccl" #f, (void **)&fns.f, fns.why, sizeof fns.why)
    if (!(BIND(GetVersion) && BIND(GetErrorString) && BIND(GetUniqueId) && BIND(CommInitRank)
          && BIND(AllReduce) && BIND(CommGetAsyncError) && BIND(CommAbort) && BIND(CommDestroy)))
        return false;
#undef BIND
    int v = 0;
    if (fns.GetVersion(&v) != ncclSuccess || v < 2000) {
        snprintf(fns.why, sizeof fns.why, "%s reports no usable version (%d)", fns.from, v);
        return false;
    }
    int major = v >= 10000 ? v / 10000 : v / 1000;
    int minor = v >= 10000 ? v / 100 % 100 : v / 100 % 10;
    snprintf(fns.version, sizeof fns.version, "%d.%d.%d", major, minor, v % 100);
    if (major != NCCL_MAJOR) {
        snprintf(fns.why, sizeof fns.why, "%s is NCCL %s; cudalab was built for NCCL %d", fns.from,
                 fns.version, NCCL_MAJOR);
        return false;
    }
    return true;
}

bool mg_nccl_load(char *version, size_t vn, char *from, size_t fn, char *why, size_t wn)
{
    if (!fns.tried) {
        fns.tried = true;
        const char *no = getenv("CUDALAB_MGPU_NO_NCCL");
        char tried[1536];
        void *h = NULL;
        if (no && no[0] && strcmp(no, "0") != 0)
            snprintf(fns.why, sizeof fns.why, "NCCL not found (CUDALAB_MGPU_NO_NCCL is set): %s",
                     MG_NCCL_INSTALL);
        else if (!(h = nccl_find_open(fns.from, sizeof fns.from, tried, sizeof tried)))
            snprintf(fns.why, sizeof fns.why, "NCCL not found (tried %s): %s", tried,
                     MG_NCCL_INSTALL);
        fns.ok = h && bind_all(h);
        if (h && !fns.ok)
            dlclose(h);
    }
    strfmt_copy(version, vn, fns.ok ? fns.version : "");
    strfmt_copy(from, fn, fns.ok ? fns.from : "");
    strfmt_copy(why, wn, fns.ok ? "" : fns.why);
    return fns.ok;
}

static bool need(cl_err *e)
{
    char v[32], f[8], why[2048];
    if (mg_nccl_load(v, sizeof v, f, sizeof f, why, sizeof why))
        return true;
    return err_set(e, "%s", why);
}

bool mg_nccl_unique_id(unsigned char id[MG_NCCL_ID_BYTES], cl_err *err)
{
    ncclUniqueId u;
    if (!need(err))
        return false;
    NCCL_CHECK(err, fns.GetUniqueId(&u));
    memcpy(id, &u, MG_NCCL_ID_BYTES);
    return true;
}

mg_nccl_comm *mg_nccl_init(int nranks, const unsigned char id[MG_NCCL_ID_BYTES], int rank,
                           cl_err *err)
{
    ncclUniqueId u;
    if (!need(err))
        return NULL;
    mg_nccl_comm *c = calloc(1, sizeof *c);
    if (!c) {
        err_set(err, "out of memory");
        return NULL;
    }
    memcpy(&u, id, MG_NCCL_ID_BYTES);
    ncclResult_t rc = fns.CommInitRank(&c->comm, nranks, u, rank);
    if (rc != ncclSuccess) {
        nccl_fail(err, rc, "ncclCommInitRank(&comm, nranks, id, rank)", __FILE__, __LINE__);
        free(c);
        return NULL;
    }
    return c;
}

bool mg_nccl_allreduce(mg_nccl_comm *comm, const float *send, float *recv, size_t count,
                       cudaStream_t stream, cl_err *err)
{
    NCCL_CHECK(err, fns.AllReduce(send, recv, count, ncclFloat32, ncclSum, comm->comm, stream));
    return true;
}

bool mg_nccl_healthy(mg_nccl_comm *comm, cl_err *err)
{
    ncclResult_t async = ncclSuccess;
    NCCL_CHECK(err, fns.CommGetAsyncError(comm->comm, &async));
    if (async != ncclSuccess && async != ncclInProgress)
        return nccl_fail(err, async, "the communicator (ncclCommGetAsyncError)", __FILE__, __LINE__);
    return true;
}

void mg_nccl_abort(mg_nccl_comm *comm)
{
    if (!comm)
        return;
    (void)fns.CommAbort(comm->comm);
    free(comm);
}

bool mg_nccl_destroy(mg_nccl_comm *comm, cl_err *err)
{
    if (!comm)
        return true;
    ncclResult_t rc = fns.CommDestroy(comm->comm);
    free(comm);
    if (rc != ncclSuccess)
        return nccl_fail(err, rc, "ncclCommDestroy(comm)", __FILE__, __LINE__);
    return true;
}

#else /* no nccl.h when cudalab was built */

#define NO_HEADER                                                                        \
    "NCCL not found: cudalab was built without NCCL's header (nccl.h); " MG_NCCL_INSTALL \
    ", then build cudalab again"

bool mg_nccl_load(char *version, size_t vn, char *from, size_t fn, char *why, size_t wn)
{
    strfmt_copy(version, vn, "");
    strfmt_copy(from, fn, "");
    strfmt_copy(why, wn, NO_HEADER);
    return false;
}

bool mg_nccl_unique_id(unsigned char id[MG_NCCL_ID_BYTES], cl_err *err)
{
    (void)id;
    return err_set(err, NO_HEADER);
}

mg_nccl_comm *mg_nccl_init(int nranks, const unsigned char id[MG_NCCL_ID_BYTES], int rank,
                           cl_err *err)
{
    (void)nranks, (void)id, (void)rank;
    err_set(err, NO_HEADER);
    return NULL;
}

bool mg_nccl_allreduce(mg_nccl_comm *comm, const float *send, float *recv, size_t count,
                       cudaStream_t stream, cl_err *err)
{
    (void)comm, (void)send, (void)recv, (void)count, (void)stream;
    return err_set(err, NO_HEADER);
}

bool mg_nccl_healthy(mg_nccl_comm *comm, cl_err *err)
{
    (void)comm;
    return err_set(err, NO_HEADER);
}

void mg_nccl_abort(mg_nccl_comm *comm)
{
    (void)comm;
}

bool mg_nccl_destroy(mg_nccl_comm *comm, cl_err *err)
{
    (void)comm, (void)err;
    return true;
}

#endif
