/* channel.c - a child's end of the protocol channel (proto/channel.h). */
#include "proto/channel.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/protocol.h"

int proto_channel_fd(void)
{
    struct stat st;
    if (fstat(PROTO_FD, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return STDOUT_FILENO;
    (void)fcntl(PROTO_FD, F_SETFD, FD_CLOEXEC);
    return PROTO_FD;
}

bool proto_die_with_parent(void)
{
    pid_t parent = getppid();
    return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == parent;
}
