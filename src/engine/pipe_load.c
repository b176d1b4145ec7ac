/* pipe_load.c - the data set from its file onto the device.
 *
 * The body of the file is cut into chunks; reader thread t takes chunks
 * t, t + T, t + 2T, ...  Each thread owns two pinned buffers and a stream:
 * it reads a chunk into one buffer (pread) and queues its copy to the
 * device (cudaMemcpyAsync, which returns at once from pinned memory), then
 * reads the next chunk into the other buffer while the first travels,
 * waiting only when it wants a buffer whose copy has not left yet.  So
 * reading from disk (or the page cache), on T threads, overlaps the copies
 * over the link; the load ends when every stream has delivered. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu/parallel.h"
#include "cpu/prep_file.h"
#include "engine/pipe.h"

bool pipe_loader_init(pipe_loader *loader, int threads, size_t chunk, cl_err *err)
{
    memset(loader, 0, sizeof *loader);
    loader->threads = threads < 1                       ? 1
                      : threads > PIPE_LOAD_MAX_THREADS ? PIPE_LOAD_MAX_THREADS
                                                        : threads;
    loader->chunk = chunk;
    for (int t = 0; t < loader->threads; t++) {
        loader->made = t + 1;
        if (cudaHostAlloc(&loader->pinned[t][0], chunk, cudaHostAllocDefault) != cudaSuccess ||
            cudaHostAlloc(&loader->pinned[t][1], chunk, cudaHostAllocDefault) != cudaSuccess) {
            cudaGetLastError();
            pipe_loader_free(loader);
            return err_set(err, "cannot pin 2 x %zu bytes of host memory for loading", chunk);
        }
        if (cudaStreamCreateWithFlags(&loader->stream[t], cudaStreamNonBlocking) != cudaSuccess ||
            cudaEventCreateWithFlags(&loader->done[t][0], cudaEventDisableTiming) != cudaSuccess ||
            cudaEventCreateWithFlags(&loader->done[t][1], cudaEventDisableTiming) != cudaSuccess) {
            cudaGetLastError();
            pipe_loader_free(loader);
            return err_set(err, "cannot create the loader's streams and events");
        }
    }
    return true;
}

void pipe_loader_free(pipe_loader *loader)
{
    for (int t = 0; t < loader->made; t++) {
        if (loader->stream[t])
            cudaStreamSynchronize(loader->stream[t]);
        for (int k = 0; k < 2; k++) {
            if (loader->pinned[t][k])
                cudaFreeHost(loader->pinned[t][k]);
            if (loader->done[t][k])
                cudaEventDestroy(loader->done[t][k]);
        }
        if (loader->stream[t])
            cudaStreamDestroy(loader->stream[t]);
    }
    memset(loader, 0, sizeof *loader);
}

typedef struct load_job {
    pipe_loader *L;
    int fd;
    char *dst;
    size_t bytes;
    pthread_mutex_t lock;
    cl_err e;                      /* the first failure */
    bool failed;
} load_job;

/* Keeps the first failure: "<what><detail>". */
static void fail(load_job *j, const char *what, const char *detail)
{
    pthread_mutex_lock(&j->lock);
    if (!j->failed) {
        j->failed = true;
        snprintf(j->e.msg, sizeof j->e.msg, "%s%s", what, detail);
    }
    pthread_mutex_unlock(&j->lock);
}

static void load_part(void *ctx, int part, int nparts)
{
    load_job *j = ctx;
    pipe_loader *L = j->L;
    size_t chunks = (j->bytes + L->chunk - 1) / L->chunk;
    int slot = 0;
    bool used[2] = {false, false};
    for (size_t k = (size_t)part; k < chunks && !j->failed; k += (size_t)nparts) {
        size_t off = k * L->chunk, len = j->bytes - off < L->chunk ? j->bytes - off : L->chunk;
        if (used[slot] && cudaEventSynchronize(L->done[part][slot]) != cudaSuccess) {
            fail(j, "a copy of the data set to the device failed", "");
            break;
        }
        char *buf = L->pinned[part][slot];
        for (size_t got = 0; got < len;) {
            ssize_t r = pread(j->fd, buf + got, len - got, (off_t)(PREP_FILE_HEADER + off + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                fail(j, "cannot read the data set: ", r < 0 ? strerror(errno) : "it is short");
                return;
            }
            got += (size_t)r;
        }
        if (cudaMemcpyAsync(j->dst + off, buf, len, cudaMemcpyHostToDevice, L->stream[part]) !=
                cudaSuccess ||
            cudaEventRecord(L->done[part][slot], L->stream[part]) != cudaSuccess) {
            fail(j, "cannot queue a copy of the data set to the device", "");
            break;
        }
        used[slot] = true;
        slot ^= 1;
    }
    if (cudaStreamSynchronize(L->stream[part]) != cudaSuccess)
        fail(j, "a copy of the data set to the device failed", "");
}

bool pipe_load(pipe_loader *loader, const char *path, void *dst, size_t bytes, cl_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, "cannot open the data set %s: %s", path, strerror(errno));
    load_job j = {.L = loader, .fd = fd, .dst = dst, .bytes = bytes};
    pthread_mutex_init(&j.lock, NULL);
    size_t chunks = (bytes + loader->chunk - 1) / loader->chunk;
    int parts = (size_t)loader->threads < chunks ? loader->threads : (int)chunks;
    parallel_run(parts < 1 ? 1 : parts, load_part, &j);
    pthread_mutex_destroy(&j.lock);
    close(fd);
    if (j.failed) {
        cudaGetLastError();
        return err_set(err, "%s", j.e.msg);
    }
    return true;
}
