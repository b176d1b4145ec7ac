/* worker.h - `cudalab worker`: the child process that owns the CUDA context.
 *
 * Started by the supervisor with requests on stdin, protocol messages on
 * fd 3 and stdout/stderr on a separate pipe, so that device printf or
 * library chatter cannot corrupt the protocol.  Run by hand (fd 3 not
 * open), it writes the protocol to stdout. */
#ifndef CUDALAB_WORKER_WORKER_H
#define CUDALAB_WORKER_WORKER_H

/* Entry point for the `worker` subcommand; returns the process exit status
 * (0 normal, 3 after a broken CUDA context, 1 when the output is gone, 2 on
 * bad arguments). */
int worker_main(int argc, char **argv);

#endif
