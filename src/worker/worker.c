#include "worker/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/landlock.h"
#include "core/nonet.h"
#include "core/paths.h"
#include "engine/engine.h"
#include "group/group.h"
#include "mgpu/rank.h"
#include "proto/channel.h"
#include "proto/protocol.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"


#define WORKER_MAX_READS 96

/* `cudalab worker --confine --read DIR... [--python]` (grading): from here
 * on this process opens files only in the system's folders, cudalab's own
 * and the folders named (the workspace, the labs) to read, and the GPU's
 * device nodes and cudalab's cache folder to write.  With --python (labs
 * with Python rows), also python3's import folders outside home folders to
 * read and /proc to write (CUDA IPC needs it), and the process is made not
 * dumpable; a python3 child (a Python row) inherits the confinement.  No
 * socket but a local one opens (core/nonet.h): nothing graded reaches the
 * network, and nothing pushes input into a terminal; the process gives up
 * its controlling terminal.  Landlock also scopes abstract UNIX sockets and
 * signals to the confined processes where the kernel offers it (ABI 6).
 * Under `grade` this is the inner wall: the worker already runs in the
 * namespace sandbox (grade/grade_sandbox.c) unless --sandbox=landlock.  Where the kernel offers no Landlock it runs as it is and says
 * so on stderr. */
static void confine(const char *const *named, size_t n, bool python)
{
    static const char *const system[] = {"/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin",
                                         "/etc", "/proc", "/sys", "/opt", "/run", "/var/run"};
    const char *reads[WORKER_MAX_READS + 48 + 24];
    char home[CL_PATH_MAX] = "", self[CL_PATH_MAX] = "", cache[CL_PATH_MAX] = "";
    static char libdirs[4096];
    size_t nr = 0;
    for (size_t i = 0; i < sizeof system / sizeof system[0]; i++)
        reads[nr++] = system[i];
    if (paths_home(home, sizeof home, NULL))
        reads[nr++] = home;
    if (paths_self_exe(self, sizeof self, NULL)) {
        paths_dir_name(self, self, sizeof self);
        reads[nr++] = self;
    }
    /* the folders the loader was told of, for libraries opened later */
    const char *ld = getenv("LD_LIBRARY_PATH");
    snprintf(libdirs, sizeof libdirs, "%s", ld ? ld : "");
    for (char *save = NULL, *d = strtok_r(libdirs, ":", &save); d && nr < WORKER_MAX_READS + 40;
         d = strtok_r(NULL, ":", &save))
        reads[nr++] = d;
    for (size_t i = 0; i < n && nr < WORKER_MAX_READS + 40; i++)
        reads[nr++] = named[i];
    /* python3's own folders, for a lab's Python rows: asked of python3
     * before confining, system folders only (never a home folder) */
    static char *py[24];
    size_t npy = python ? engine_python_import_dirs(py, sizeof py / sizeof py[0]) : 0;
    for (size_t i = 0; i < npy && nr < WORKER_MAX_READS + 48; i++)
        reads[nr++] = py[i];
    const char *writes[3] = {"/dev", NULL, NULL};
    size_t nw = 1;
    if (paths_cache_dir(cache, sizeof cache, NULL)) {
        writes[nw++] = cache;
        cl_err e = {{0}};
        (void)paths_mkdir_p(cache, &e);
        /* CUDA's own cache of JIT-compiled code, where the worker may write */
        char jit[CL_PATH_MAX + 16];
        snprintf(jit, sizeof jit, "%s/cuda-jit", cache);
        setenv("CUDA_CACHE_PATH", jit, 0);
    }
    if (python) {
        /* A python3 child maps the worker's buffers through CUDA IPC, whose
         * import writes below /proc.  The child runs the learner's Python
         * as this user: this process is not dumpable (from here on, and
         * engine/pybridge.h makes sure again), so the child may not attach
         * to it or open its memory, and Landlock keeps it from every
         * process outside this sandbox. */
        writes[nw++] = "/proc";
        (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    /* no controlling terminal: nothing can be typed into the grader's */
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (tty >= 0) {
        (void)ioctl(tty, TIOCNOTTY);
        close(tty);
    }
    char why[256];
    if (landlock_confine(reads, nr, writes, nw, why, sizeof why) != LANDLOCK_APPLIED)
        fprintf(stderr, "cudalab worker: not confined: %s\n", why);
    if (!nonet_apply(why, sizeof why))
        fprintf(stderr, "cudalab worker: network not closed: %s\n", why);
}

/* The coordinator's run through the worker loop's sink. */
static bool group_engine_run(const run_request *req, const engine_sink *sink, run_fault *fault)
{
    const group_sink gs = {sink->progress, sink->result, sink->log, sink->ud};
    return group_run(req, &gs, fault);
}

/* `cudalab worker --group`: the multigpu lab's coordinator, which makes no
 * CUDA call itself (group/group.h). */
static int group_main(void)
{
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    int out_fd = proto_channel_fd();
    if (out_fd == PROTO_FD && !proto_die_with_parent())
        return 1;
    const workerloop_engine eng = {group_probe, group_engine_run, group_shutdown};
    return workerloop_serve(&eng, STDIN_FILENO, out_fd);
}

int worker_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--group") == 0)
            return group_main();
        if (strcmp(argv[i], "--probe") == 0)
            return mgpu_probe_main();
        if (strcmp(argv[i], "--rank") == 0)
            return mgpu_rank_main(argc, argv);
    }

    const char *reads[WORKER_MAX_READS];
    size_t nreads = 0;
    bool confined = false, python = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "worker") == 0)
            continue;
        if (strcmp(argv[i], "--confine") == 0) {
            confined = true;
            continue;
        }
        if (strcmp(argv[i], "--python") == 0) {
            python = true;
            continue;
        }
        if (strcmp(argv[i], "--read") == 0 && i + 1 < argc && nreads < WORKER_MAX_READS) {
            reads[nreads++] = argv[++i];
            continue;
        }
        fprintf(stderr, "cudalab worker: unexpected argument '%s'\n"
                        "usage: cudalab worker [--confine [--read DIR]... [--python]]   (started by cudalab "
                        "itself; reads JSON requests on stdin)\n",
                argv[i]);
        return 2;
    }
    if (confined) {
        /* CUDA first: opening the GPU may create its device nodes through a
         * helper that a confined process could not run. */
        device_info dev;
        engine_probe(&dev);
        confine(reads, nreads, python);
    }

    /* The worker runs in its own process group, out of reach of the
     * terminal's Ctrl-C: it dies with the parent instead of lingering on a
     * kernel that never ends. */
    int out_fd = proto_channel_fd();
    if (out_fd == PROTO_FD && !proto_die_with_parent())
        return 1;

    const char *no_peak = getenv(PROTO_NO_PEAK_ENV);
    if (no_peak && no_peak[0] && strcmp(no_peak, "0") != 0)
        engine_skip_peak(PROTO_NO_PEAK_ENV " is set");
    const char *san = getenv(PROTO_UNDER_SANITIZER_ENV);
    if (san && san[0] && strcmp(san, "0") != 0)
        engine_under_sanitizer();

    const workerloop_engine eng = {engine_probe, dispatch_run, engine_shutdown};
    return workerloop_serve(&eng, STDIN_FILENO, out_fd);
}
