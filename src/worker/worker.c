#include "worker/worker.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "proto/protocol.h"
#include "worker/dispatch.h"
#include "worker/workerloop.h"


/* fd 3 carries the protocol when the supervisor set it up as a pipe (or a
 * socket); anything else (a shell's leftover file) is not ours. */
static bool proto_fd_open(void)
{
    struct stat st;
    if (fstat(PROTO_FD, &st) != 0)
        return false;
    return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

int worker_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "worker") == 0)
            continue;
        fprintf(stderr, "cudalab worker: unexpected argument '%s'\n"
                        "usage: cudalab worker   (started by cudalab itself; reads JSON requests on stdin)\n",
                argv[i]);
        return 2;
    }

    int out_fd = STDOUT_FILENO;
    if (proto_fd_open()) {
        out_fd = PROTO_FD;
        (void)fcntl(out_fd, F_SETFD, FD_CLOEXEC);
        /* The worker runs in its own process group, out of reach of the
         * terminal's Ctrl-C: die with the parent instead of lingering on a
         * kernel that never ends. */
        pid_t parent = getppid();
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() != parent)
            return 1;
    }

    const char *no_peak = getenv(PROTO_NO_PEAK_ENV);
    if (no_peak && no_peak[0] && strcmp(no_peak, "0") != 0)
        engine_skip_peak(PROTO_NO_PEAK_ENV " is set");

    const workerloop_engine eng = {engine_probe, dispatch_run, engine_shutdown};
    return workerloop_serve(&eng, STDIN_FILENO, out_fd);
}
