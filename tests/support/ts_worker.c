#include "support.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervise/supervisor.h"

int ts_serve_worker(const workerloop_engine *eng)
{
    struct stat st;
    int out = STDOUT_FILENO;
    if (fstat(3, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        out = 3;
    return workerloop_serve(eng, STDIN_FILENO, out);
}

bool ts_worker_has_device(char *why, size_t n)
{
    const char *argv[] = {ts_exe(), "worker", NULL};
    supervisor_opts so = {.argv = argv, .time_limit_s = 120};
    cl_err e = {{0}};
    device_info dev;
    memset(&dev, 0, sizeof dev);
    supervisor *s = supervisor_new(&so, &e);
    bool ok = s && supervisor_hello(s, 120000, &dev, &e);
    supervisor_free(s);
    snprintf(why, n, "%s", !ok ? e.msg : dev.reason);
    return ok && dev.present;
}
