/* landlock.c - confining what the calling thread can open (core/landlock.h). */
#define _GNU_SOURCE
#include "core/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
#include <linux/landlock.h>
#define HAVE_LANDLOCK 1
#else
#define HAVE_LANDLOCK 0
#endif

#if HAVE_LANDLOCK

#define LANDLOCK_SCOPES_ABSTRACT_UNIX (1ULL << 0)
#define LANDLOCK_SCOPES_SIGNAL (1ULL << 1)

/* Every file-system right each ABI version knows (handled, hence denied
 * unless a rule allows it). */
static uint64_t handled_rights(int abi)
{
    uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                 LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
    if (abi >= 5)
        r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
    return r;
}

int landlock_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return v > 0 ? (int)v : 0;
}

/* The rights that apply to a file (the others are a folder's). */
static uint64_t file_rights(uint64_t handled)
{
    uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                 LANDLOCK_ACCESS_FS_READ_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    r |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
    r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
    return r & handled;
}

/* Allows below path (a folder), or on path (a file): reading, or with
 * write set every right this ruleset handles (creating, writing, removing,
 * a device's ioctls). */
static bool allow(int ruleset, uint64_t handled, const char *path, bool write, char *why,
                  size_t wn)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return true;   /* not there: nothing to allow */
    struct stat st;
    bool dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE |
                    (dir ? LANDLOCK_ACCESS_FS_READ_DIR : 0);
    struct landlock_path_beneath_attr rule = {
        .allowed_access = !write ? read : dir ? handled : file_rights(handled),
        .parent_fd = fd,
    };
    long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int err = errno;
    close(fd);
    if (rc != 0 && why)
        snprintf(why, wn, "Landlock refused a rule for %s: %s", path, strerror(err));
    return rc == 0;
}

landlock_status landlock_confine(const char *const *reads, size_t nr,
                                 const char *const *writes, size_t nw, char *why, size_t wn)
{
    int abi = landlock_abi();
    if (abi <= 0) {
        if (why)
            snprintf(why, wn, "this kernel offers no Landlock");
        return LANDLOCK_UNAVAILABLE;
    }
    uint64_t handled = handled_rights(abi);
    /* From ABI 6 the ruleset also scopes abstract UNIX sockets and signals
     * to the confined processes: no connecting to a listener outside, no
     * signal to a process outside.  The struct is spelled out here, as
     * older kernel headers lack the field. */
    struct {
        uint64_t handled_access_fs, handled_access_net, scoped;
    } attr = {.handled_access_fs = handled,
              .scoped = abi >= 6 ? LANDLOCK_SCOPES_ABSTRACT_UNIX | LANDLOCK_SCOPES_SIGNAL : 0};
    size_t attr_size = abi >= 6 ? sizeof attr : sizeof(uint64_t);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0);
    if (ruleset < 0) {
        if (why)
            snprintf(why, wn, "Landlock: cannot create a ruleset: %s", strerror(errno));
        return LANDLOCK_FAILED;
    }
    landlock_status st = LANDLOCK_APPLIED;
    for (size_t i = 0; i < nr && st == LANDLOCK_APPLIED; i++)
        if (reads[i] && reads[i][0] && !allow(ruleset, handled, reads[i], false, why, wn))
            st = LANDLOCK_FAILED;
    for (size_t i = 0; i < nw && st == LANDLOCK_APPLIED; i++)
        if (writes[i] && writes[i][0] && !allow(ruleset, handled, writes[i], true, why, wn))
            st = LANDLOCK_FAILED;
    if (st == LANDLOCK_APPLIED && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        if (why)
            snprintf(why, wn, "cannot set no_new_privs: %s", strerror(errno));
        st = LANDLOCK_FAILED;
    }
    if (st == LANDLOCK_APPLIED && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        if (why)
            snprintf(why, wn, "Landlock: cannot confine the thread: %s", strerror(errno));
        st = LANDLOCK_FAILED;
    }
    close(ruleset);
    return st;
}

#else

int landlock_abi(void)
{
    return 0;
}

landlock_status landlock_confine(const char *const *reads, size_t nr,
                                 const char *const *writes, size_t nw, char *why, size_t wn)
{
    (void)reads;
    (void)nr;
    (void)writes;
    (void)nw;
    if (why)
        snprintf(why, wn, "this system offers no Landlock");
    return LANDLOCK_UNAVAILABLE;
}

#endif

landlock_status landlock_confine_reads(const char *const *paths, size_t npaths, char *why,
                                       size_t why_n)
{
    return landlock_confine(paths, npaths, NULL, 0, why, why_n);
}
