/* landlock.h - confining what the calling thread can read (Linux Landlock).
 *
 * landlock_confine_reads lets the calling thread, and every thread and
 * process it starts from then on, read files only below the given paths
 * (folders or single files) and write none.  It is for code that reads
 * files at the request of untrusted input, such as a compiler following a
 * learner's #include: even a path that slipped past cudalab's own checks
 * then cannot be opened.  The confinement cannot be undone: run the work
 * in a thread of its own.  Kernels without Landlock (before Linux 5.13, or
 * with it disabled) leave the thread as it is and say so. */
#ifndef CUDALAB_CORE_LANDLOCK_H
#define CUDALAB_CORE_LANDLOCK_H

#include <stddef.h>

typedef enum landlock_status {
    LANDLOCK_APPLIED,        /* confined */
    LANDLOCK_UNAVAILABLE,    /* this kernel offers no Landlock: not confined */
    LANDLOCK_FAILED,         /* Landlock is there but refused the rules: not confined */
} landlock_status;

/* Confines the calling thread to reading below paths[0..npaths) (paths that do
 * not exist are skipped).  why (may be NULL) receives a line when the
 * status is not LANDLOCK_APPLIED. */
landlock_status landlock_confine_reads(const char *const *paths, size_t npaths, char *why,
                                       size_t why_n);
/* The same, and below writes[0..nw) (folders or files) every right: to
 * create, write, remove, and use a device's ioctls (the GPU's /dev nodes). */
landlock_status landlock_confine(const char *const *reads, size_t nr,
                                 const char *const *writes, size_t nw, char *why, size_t wn);

/* The Landlock ABI version this kernel offers; 0 when none. */
int landlock_abi(void);

#endif
