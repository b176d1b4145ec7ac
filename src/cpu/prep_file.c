#include "cpu/prep_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/paths.h"
#include "cpu/parallel.h"
#include "cpu/prep_data.h"

#define CHUNK_BYTES ((size_t)1 << 20)
#define IO_BYTES ((size_t)8 << 20)
#define DIR_OFFSET 64
#define DIR_ENTRY 48
#define NCOLS (PREP_NUM + 4)

size_t prep_file_bytes(int64_t rows)
{
    return PREP_FILE_HEADER + prep_table_bytes(rows);
}

bool prep_file_path(int64_t rows, uint64_t seed, char *out, size_t len, cl_err *err)
{
    char dir[CL_PATH_MAX];
    if (!paths_cache_dir(dir, sizeof dir, err))
        return false;
    int w = snprintf(out, len, "%s/pipeline/trips-%lld-%llu.bin", dir, (long long)rows,
                     (unsigned long long)seed);
    if (w < 0 || (size_t)w >= len)
        return err_set(err, "the data set's path is too long");
    return true;
}

static void format_bytes(double b, char *out, size_t n)
{
    if (b >= 1073741824.0)
        snprintf(out, n, "%.1f GiB", b / 1073741824.0);
    else if (b >= 1048576.0)
        snprintf(out, n, "%.1f MiB", b / 1048576.0);
    else
        snprintf(out, n, "%.1f KiB", b / 1024.0);
}

/* ---- the checksum ---------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* One chunk: four interleaved lanes of xor-multiply over 64-bit words. */
static uint64_t chunk_hash(const unsigned char *p, size_t bytes)
{
    uint64_t h[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                     0x082efa98ec4e6c89ull};
    size_t words = bytes / 8;
    for (size_t j = 0; j < words; j++) {
        uint64_t w;
        memcpy(&w, p + 8 * j, 8);
        h[j & 3] = (h[j & 3] ^ w) * 0x100000001b3ull;
    }
    return mix64(h[0]) ^ mix64(h[1] + 1) ^ mix64(h[2] + 2) ^ mix64(h[3] + 3) ^ bytes;
}

typedef struct sum_job {
    const unsigned char *p;
    size_t bytes, nchunks;
    uint64_t *out;
} sum_job;

static void sum_part(void *ctx, int part, int nparts)
{
    const sum_job *j = ctx;
    size_t c0 = j->nchunks * (size_t)part / (size_t)nparts;
    size_t c1 = j->nchunks * (size_t)(part + 1) / (size_t)nparts;
    for (size_t c = c0; c < c1; c++) {
        size_t off = c * CHUNK_BYTES;
        size_t len = j->bytes - off < CHUNK_BYTES ? j->bytes - off : CHUNK_BYTES;
        j->out[c] = chunk_hash(j->p + off, len);
    }
}

uint64_t prep_checksum(const void *body, size_t bytes, int threads)
{
    size_t nchunks = (bytes + CHUNK_BYTES - 1) / CHUNK_BYTES;
    uint64_t *hs = nchunks ? calloc(nchunks, sizeof *hs) : NULL;
    uint64_t f = 0x6a09e667f3bcc908ull ^ bytes;
    if (nchunks && !hs) {
        for (size_t c = 0; c < nchunks; c++) {
            size_t off = c * CHUNK_BYTES;
            size_t len = bytes - off < CHUNK_BYTES ? bytes - off : CHUNK_BYTES;
            f = mix64(f ^ (chunk_hash((const unsigned char *)body + off, len) + c));
        }
        return f;
    }
    sum_job j = {.p = body, .bytes = bytes, .nchunks = nchunks, .out = hs};
    parallel_run(parallel_threads(threads, (double)nchunks, 8.0), sum_part, &j);
    for (size_t c = 0; c < nchunks; c++)
        f = mix64(f ^ (hs[c] + c));
    free(hs);
    return f;
}

/* ---- the header ---------------------------------------------------------------- */

static void put32(unsigned char *h, size_t at, uint32_t v)
{
    memcpy(h + at, &v, 4);
}

static void put64(unsigned char *h, size_t at, uint64_t v)
{
    memcpy(h + at, &v, 8);
}

static uint32_t get32(const unsigned char *h, size_t at)
{
    uint32_t v;
    memcpy(&v, h + at, 4);
    return v;
}

static uint64_t get64(const unsigned char *h, size_t at)
{
    uint64_t v;
    memcpy(&v, h + at, 8);
    return v;
}

static void make_header(unsigned char *h, int64_t n, uint64_t seed, uint64_t sum)
{
    static const char *const tail[4] = {"ts", "pay", "zone", "label"};
    uint64_t s = (uint64_t)prep_stride(n);
    memset(h, 0, PREP_FILE_HEADER);
    memcpy(h, PREP_FILE_MAGIC, 8);
    put32(h, 8, PREP_FILE_VERSION);
    put32(h, 12, PREP_FILE_HEADER);
    put64(h, 16, (uint64_t)n);
    put64(h, 24, seed);
    put64(h, 32, s);
    put64(h, 40, prep_table_bytes(n));
    put64(h, 48, sum);
    put32(h, 56, NCOLS);
    for (int c = 0; c < NCOLS; c++) {
        unsigned char *d = h + DIR_OFFSET + (size_t)c * DIR_ENTRY;
        const char *name = c < PREP_NUM ? prep_num_name(c) : tail[c - PREP_NUM];
        snprintf((char *)d, 24, "%s", name);
        put32(d, 24, c < PREP_NUM || c == NCOLS - 1 ? 0u : 1u);   /* 0 f32, 1 i32 */
        put64(d, 32, PREP_FILE_HEADER + (uint64_t)c * 4u * s);
        put64(d, 40, 4u * (uint64_t)n);
    }
}

/* ---- writing ------------------------------------------------------------------- */

static bool write_all(int fd, const void *p, size_t len, const char *path, cl_err *e)
{
    const unsigned char *b = p;
    while (len > 0) {
        size_t want = len < IO_BYTES ? len : IO_BYTES;
        ssize_t w = write(fd, b, want);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return err_set(e, "cannot write %s: %s", path, w < 0 ? strerror(errno) : "no space");
        b += w;
        len -= (size_t)w;
    }
    return true;
}

bool prep_file_write(const char *path, const void *block, int64_t rows, uint64_t seed, cl_err *err)
{
    char dir[CL_PATH_MAX], tmp[CL_PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (slash && !paths_mkdir_p(dir, err))
        return err_prefix(err, "the data set's folder (set CUDALAB_CACHE to use another)");
    struct statvfs fs;
    size_t need = prep_file_bytes(rows);
    if (slash && statvfs(dir, &fs) == 0) {
        double avail = (double)fs.f_bavail * (double)fs.f_frsize;
        if (avail < (double)need) {
            char a[32], b[32];
            format_bytes((double)need, a, sizeof a);
            format_bytes(avail, b, sizeof b);
            return err_set(err, "the data set needs %s in %s, which has %s free (set "
                              "CUDALAB_CACHE to use another folder)",
                           a, dir, b);
        }
    }
    unsigned char *h = malloc(PREP_FILE_HEADER);
    if (!h)
        return err_set(err, "out of memory");
    make_header(h, rows, seed, prep_checksum(block, prep_table_bytes(rows), 0));
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(h);
        return err_set(err, "cannot create %s: %s", tmp, strerror(errno));
    }
    bool ok = write_all(fd, h, PREP_FILE_HEADER, tmp, err) &&
              write_all(fd, block, prep_table_bytes(rows), tmp, err);
    free(h);
    if (close(fd) != 0 && ok)
        ok = err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    if (ok && rename(tmp, path) != 0)
        ok = err_set(err, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
    if (!ok)
        unlink(tmp);
    return ok;
}

/* ---- reading -------------------------------------------------------------------- */

typedef struct read_job {
    int fd;
    unsigned char *dst;
    size_t bytes;
    int failed_errno;          /* first error seen, 0: none */
    pthread_mutex_t lock;
} read_job;

static void read_part(void *ctx, int part, int nparts)
{
    read_job *j = ctx;
    size_t a = j->bytes * (size_t)part / (size_t)nparts / 4096 * 4096;
    size_t b = part == nparts - 1 ? j->bytes : j->bytes * (size_t)(part + 1) / (size_t)nparts / 4096 * 4096;
    while (a < b) {
        size_t want = b - a < IO_BYTES ? b - a : IO_BYTES;
        ssize_t r = pread(j->fd, j->dst + a, want, (off_t)(PREP_FILE_HEADER + a));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            pthread_mutex_lock(&j->lock);
            if (!j->failed_errno)
                j->failed_errno = r < 0 ? errno : EIO;
            pthread_mutex_unlock(&j->lock);
            return;
        }
        a += (size_t)r;
    }
}

bool prep_file_read(const char *path, void *block, int64_t rows, int threads, cl_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, "cannot open %s: %s", path, strerror(errno));
    read_job j = {.fd = fd, .dst = block, .bytes = prep_table_bytes(rows)};
    pthread_mutex_init(&j.lock, NULL);
    parallel_run(parallel_threads(threads, (double)j.bytes, (double)IO_BYTES), read_part, &j);
    pthread_mutex_destroy(&j.lock);
    close(fd);
    if (j.failed_errno)
        return err_set(err, "cannot read %s: %s", path,
                       j.failed_errno == EIO ? "the file is shorter than its header says"
                                             : strerror(j.failed_errno));
    return true;
}

bool prep_file_check(const char *path, int64_t rows, uint64_t seed, void *block, int threads,
                     cl_err *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return err_set(err, "missing");
    if ((size_t)st.st_size != prep_file_bytes(rows))
        return err_set(err, "%lld bytes instead of %zu", (long long)st.st_size,
                       prep_file_bytes(rows));
    unsigned char h[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(err, "cannot be opened: %s", strerror(errno));
    ssize_t r = pread(fd, h, sizeof h, 0);
    close(fd);
    if (r != (ssize_t)sizeof h)
        return err_set(err, "its header cannot be read");
    if (memcmp(h, PREP_FILE_MAGIC, 8) != 0)
        return err_set(err, "not a cudalab data set (no %s at its start)", PREP_FILE_MAGIC);
    if (get32(h, 8) != PREP_FILE_VERSION || get32(h, 12) != PREP_FILE_HEADER)
        return err_set(err, "written by another version of cudalab (format %u)", get32(h, 8));
    if (get64(h, 16) != (uint64_t)rows || get64(h, 24) != seed ||
        get64(h, 32) != (uint64_t)prep_stride(rows) || get64(h, 40) != prep_table_bytes(rows))
        return err_set(err, "its header describes another table");
    void *body = block ? block : malloc(prep_table_bytes(rows));
    if (!body)
        return err_set(err, "out of host memory to check it");
    bool ok = prep_file_read(path, body, rows, threads, err);
    if (ok && prep_checksum(body, prep_table_bytes(rows), threads) != get64(h, 48))
        ok = err_set(err, "damaged: its checksum does not match");
    if (!block)
        free(body);
    return ok;
}

/* ---- ensure ------------------------------------------------------------------------ */

/* The files this process has checked: path, size and modification time. */
#define TRUSTED_MAX 16
static struct {
    char path[CL_PATH_MAX];
    off_t size;
    struct timespec mtime;
} trusted[TRUSTED_MAX];
static int ntrusted;
static pthread_mutex_t trusted_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_trusted(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    bool yes = false;
    pthread_mutex_lock(&trusted_lock);
    for (int i = 0; i < ntrusted && !yes; i++)
        yes = strcmp(trusted[i].path, path) == 0 && trusted[i].size == st.st_size &&
              trusted[i].mtime.tv_sec == st.st_mtim.tv_sec &&
              trusted[i].mtime.tv_nsec == st.st_mtim.tv_nsec;
    pthread_mutex_unlock(&trusted_lock);
    return yes;
}

static void trust(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    pthread_mutex_lock(&trusted_lock);
    int slot = -1;
    for (int i = 0; i < ntrusted; i++)
        if (strcmp(trusted[i].path, path) == 0)
            slot = i;
    if (slot < 0)
        slot = ntrusted < TRUSTED_MAX ? ntrusted++ : TRUSTED_MAX - 1;
    snprintf(trusted[slot].path, sizeof trusted[slot].path, "%s", path);
    trusted[slot].size = st.st_size;
    trusted[slot].mtime = st.st_mtim;
    pthread_mutex_unlock(&trusted_lock);
}

/* Removes the data sets of n rows made for other seeds than keep and the
 * default one: each (rows, seed) has a file, and a grader's fresh seeds
 * would otherwise pile up. */
static void prune(const char *path, int64_t n, uint64_t keep)
{
    char dir[CL_PATH_MAX], prefix[64];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return;
    *slash = '\0';
    snprintf(prefix, sizeof prefix, "trips-%lld-", (long long)n);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t pl = strlen(prefix), len = strlen(de->d_name);
        if (strncmp(de->d_name, prefix, pl) != 0 || len < pl + 5 ||
            strcmp(de->d_name + len - 4, ".bin") != 0)
            continue;
        char *end;
        unsigned long long seed = strtoull(de->d_name + pl, &end, 10);
        if (strcmp(end, ".bin") != 0 || seed == keep || seed == PREP_DEFAULT_SEED)
            continue;
        char victim[CL_PATH_MAX + 256];
        snprintf(victim, sizeof victim, "%s/%s", dir, de->d_name);
        unlink(victim);
    }
    closedir(d);
}

bool prep_file_ensure(int64_t rows, uint64_t seed, void *block, int threads, char *path,
                      size_t plen, bool *filled, char *note, size_t nlen, cl_err *err)
{
    *filled = false;
    if (nlen)
        note[0] = '\0';
    if (!prep_file_path(rows, seed, path, plen, err))
        return false;
    if (is_trusted(path))
        return true;
    cl_err why = {{0}};
    if (prep_file_check(path, rows, seed, block, threads, &why)) {
        trust(path);
        *filled = true;
        return true;
    }
    double t0 = clock_now_s();
    prep_cols c;
    prep_cols_in(block, rows, &c);
    prep_generate(&c, rows, seed, threads);
    *filled = true;
    if (!prep_file_write(path, block, rows, seed, err))
        return false;
    prune(path, rows, seed);
    trust(path);
    snprintf(note, nlen, "the data set file %s was %s: generated %lld rows (seed %llu) in %.2f s",
             path, why.msg, (long long)rows, (unsigned long long)seed, clock_now_s() - t0);
    return true;
}
