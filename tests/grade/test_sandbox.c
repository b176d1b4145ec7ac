/* The grading sandbox, probe by probe, without a GPU: python3 runs a hostile
 * learner's script (tests/grade/data/sandbox_probe.py) inside the very
 * sandbox `cudalab grade` starts its worker in (grade/sandbox.h), with a
 * controlling terminal of its own outside, and none of these is reached:
 * the key (variable and file), the grader's /proc, a UNIX socket outside
 * (by path and abstract), TCP on the loopback outside, the terminal
 * (TIOCSTI), /dev/shm (nothing stays), core_pattern, /etc/shadow, the
 * grader's caches (the CPU baselines are there read-only), another
 * learner's files; and nothing is left behind.  The other levels' command
 * lines and the key's scrubbing from the grader's own environment too. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/bwrap.h"
#include "core/paths.h"
#include "grade/sandbox.h"
#include "grade/sign.h"
#include "lab/pyenv.h"
#include "support.h"

#define SECRET "SECRET-sandbox-4b1d-do-not-leak"

static char g_top[CL_PATH_MAX], g_key[CL_PATH_MAX + 32], g_ws[CL_PATH_MAX + 32];
static char g_cache[CL_PATH_MAX + 32], g_other[CL_PATH_MAX + 64];

static int setup(void **state)
{
    (void)state;
    if (!ts_tmpdir(g_top, sizeof g_top, "sandbox"))
        return -1;
    char p[CL_PATH_MAX + 64];
    cl_err e;
    snprintf(g_key, sizeof g_key, "%s/instructor/grade.key", g_top);
    snprintf(g_ws, sizeof g_ws, "%s/ws", g_top);
    snprintf(g_cache, sizeof g_cache, "%s/cache", g_top);
    snprintf(g_other, sizeof g_other, "%s/ws-bob/reduction/starter.cu", g_top);
    snprintf(p, sizeof p, "%s/instructor", g_top);
    if (!paths_mkdir_p(p, &e) || !paths_mkdir_p(g_ws, &e))
        return -1;
    snprintf(p, sizeof p, "%s/ws-bob/reduction", g_top);
    if (!paths_mkdir_p(p, &e) || !ts_write(g_other, "// " SECRET "\n") ||
        !ts_write(g_key, SECRET "\n"))
        return -1;
    snprintf(p, sizeof p, "%s/cudalab", g_cache);
    if (!paths_mkdir_p(p, &e))
        return -1;
    snprintf(p, sizeof p, "%s/cudalab/cpu_baselines.json", g_cache);
    if (!ts_write(p, "{\"baselines\": []}\n"))
        return -1;
    setenv("XDG_CACHE_HOME", g_cache, 1);
    snprintf(p, sizeof p, "%s/data", g_top);
    setenv("XDG_DATA_HOME", p, 1);
    char probe[CL_PATH_MAX + 64], ws_probe[CL_PATH_MAX + 64];
    ts_home_path(probe, sizeof probe, "tests/grade/data/sandbox_probe.py");
    snprintf(ws_probe, sizeof ws_probe, "%s/probe.py", g_ws);
    char *text = ts_read(probe);
    bool ok = text && ts_write(ws_probe, text);
    free(text);
    return ok ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    ts_rm_rf(g_top);
    return 0;
}

/* A listening socket: a UNIX one at path, an abstract one (path NULL,
 * name given) or TCP on 127.0.0.1 (*port set). */
static int listener(int family, const char *path, const char *abstract, int *port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    if (family == AF_UNIX) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        socklen_t len;
        if (path) {
            snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
            len = sizeof a;
        } else {
            size_t n = strlen(abstract);
            memcpy(a.sun_path + 1, abstract, n);
            len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
        }
        assert_int_equal(bind(fd, (struct sockaddr *)&a, len), 0);
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof a;
        assert_int_equal(bind(fd, (struct sockaddr *)&a, len), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
        *port = ntohs(a.sin_port);
    }
    assert_int_equal(listen(fd, 4), 0);
    return fd;
}

/* Whether a connection waits on listening socket fd. */
static bool reached(int fd)
{
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        return false;
    close(c);
    return true;
}

/* Runs argv with a new terminal as its controlling one (stdin), its
 * stdout into out; the pty's master end in *master. */
static int run_with_tty(char **argv, char *out, size_t cap, int *master)
{
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    assert_true(*master >= 0);
    assert_int_equal(grantpt(*master), 0);
    assert_int_equal(unlockpt(*master), 0);
    const char *slave = ptsname(*master);
    assert_non_null(slave);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* a session of its own whose terminal is the pty: what a learner
         * sees when a grader runs `cudalab grade` in a terminal */
        setsid();
        int t = open(slave, O_RDWR);
        if (t < 0)
            _exit(126);
        dup2(t, 0);
        dup2(pipefd[1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(pipefd[1]);
    size_t n = 0;
    for (;;) {
        struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
        if (poll(&p, 1, 90000) <= 0)
            break;
        ssize_t k = read(pipefd[0], out + n, cap - 1 - n);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    out[n] = '\0';
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void test_python_probes(void **state)
{
    (void)state;
    char py[CL_PATH_MAX], why[256];
    if (!pyenv_find(py, sizeof py, why, sizeof why)) {
        printf("no python3 here (%s): the probes need one\n", why);
        skip();
    }
    /* the grader: its key loaded as grade loads it, which takes it out of
     * its own environment block */
    setenv(SIGN_KEY_ENV, SECRET, 1);
    char *key = NULL;
    size_t keylen = 0;
    cl_err e = {{0}};
    assert_true(sign_key_load(NULL, &key, &keylen, &e));
    assert_string_equal(key, SECRET);
    free(key);
    assert_null(getenv(SIGN_KEY_ENV));
    FILE *f = fopen("/proc/self/environ", "rb");
    char buf[1 << 16];
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_null(memmem(buf, got, SECRET, strlen(SECRET)));

    char sock[CL_PATH_MAX + 32], abstract[64], port[16], shm[64], grader[16], inside[CL_PATH_MAX];
    snprintf(sock, sizeof sock, "%s/grader.sock", g_top);
    snprintf(abstract, sizeof abstract, "cudalab-probe-%d", (int)getpid());
    snprintf(shm, sizeof shm, "cudalab-probe-%d", (int)getpid());
    snprintf(grader, sizeof grader, "%d", (int)getpid());
    int tcp_port = 0;
    int lu = listener(AF_UNIX, sock, NULL, NULL), la = listener(AF_UNIX, NULL, abstract, NULL);
    int lt = listener(AF_INET, NULL, NULL, &tcp_port);
    snprintf(port, sizeof port, "%d", tcp_port);

    grade_opts o = {.sandbox = GRADE_SANDBOX_NAMESPACES, .key_path = g_key};
    static grade_jail j;
    char probe[CL_PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/probe.py", g_ws);
    const char *inner[] = {"/bin/sh", "-c", "exec \"$CUDALAB_PYTHON\" -I \"$0\" \"$@\"", probe,
                           g_key, grader, SECRET, sock, abstract, port, inside, g_cache, g_other,
                           shm, NULL};
    snprintf(inside, sizeof inside, "-");   /* the probe finds it from XDG_CACHE_HOME */
    if (!grade_jail_open(&j, &o, g_ws, NULL, 0, true, inner, &e))
        fail_msg("the sandbox could not be made: %s", e.msg);
    char scratch[CL_PATH_MAX];
    snprintf(scratch, sizeof scratch, "%s", j.scratch);
    /* the key's variable set again, as a careless grader might leave it */
    setenv(SIGN_KEY_ENV, SECRET, 1);
    static char out[1 << 16];
    int master = -1;
    assert_non_null(j.bw);
    int status = run_with_tty(j.bw, out, sizeof out, &master);
    unsetenv(SIGN_KEY_ENV);
    grade_jail_close(&j);
    printf("%s", out);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    cJSON *doc = cJSON_Parse(out);
    assert_non_null(doc);
    static const char *const probes[] = {
        "key_variable", "key_file", "grader_proc", "other_processes", "unix_socket_path",
        "unix_socket_abstract", "tcp_outside", "terminal_tiocsti", "controlling_terminal",
        "dev_shm_persists", "core_pattern", "etc_shadow", "baseline_cache_write",
        "grader_cache", "other_learner", "subprocess_key", "network_interfaces"};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, probes[i]);
        assert_true(cJSON_IsString(v));
        if (!ts_starts_with(v->valuestring, "blocked"))
            fail_msg("probe %s: %s", probes[i], v->valuestring);
    }
    cJSON_Delete(doc);
    /* nothing reached the listeners, the terminal or the host's /dev/shm */
    assert_false(reached(lu));
    assert_false(reached(la));
    assert_false(reached(lt));
    char typed[16];
    int fl = fcntl(master, F_GETFL);
    fcntl(master, F_SETFL, fl | O_NONBLOCK);
    assert_true(read(master, typed, sizeof typed) <= 0);
    close(master);
    char p[CL_PATH_MAX + 64];
    snprintf(p, sizeof p, "/dev/shm/%s", shm);
    assert_false(paths_is_file(p));
    /* the baselines as they were, and the scratch folder gone */
    snprintf(p, sizeof p, "%s/cudalab/cpu_baselines.json", g_cache);
    char *cache = ts_read(p);
    assert_non_null(cache);
    assert_string_equal(cache, "{\"baselines\": []}\n");
    free(cache);
    assert_false(paths_is_dir(scratch));
    close(lu);
    close(la);
    close(lt);
}

/* The fallback and none levels: no bwrap, the worker confined or not. */
static void test_levels(void **state)
{
    (void)state;
    cl_err e = {{0}};
    static grade_jail j;
    grade_opts o = {.sandbox = GRADE_SANDBOX_LANDLOCK, .worker_exe = "/x/cudalab"};
    const char *labs[] = {"/labs/reduction"};
    assert_true(grade_jail_open(&j, &o, "/ws", labs, 1, false, NULL, &e));
    /* the worker, confined, with caches of its own in a scratch folder */
    const char *const *cmd = grade_jail_command(&j);
    assert_string_equal(cmd[0], "/usr/bin/env");
    char want[CL_PATH_MAX + 32];
    snprintf(want, sizeof want, "XDG_CACHE_HOME=%s/cache", j.scratch);
    assert_string_equal(cmd[1], want);
    size_t w = 1;
    while (cmd[w] && strcmp(cmd[w], "/x/cudalab") != 0)
        w++;
    assert_non_null(cmd[w]);
    assert_string_equal(cmd[w + 1], "worker");
    assert_string_equal(cmd[w + 2], "--confine");
    assert_string_equal(cmd[w + 4], "/ws");
    assert_string_equal(cmd[w + 6], "/labs/reduction");
    assert_null(cmd[w + 7]);
    char scratch[CL_PATH_MAX];
    snprintf(scratch, sizeof scratch, "%s", j.scratch);
    assert_true(paths_is_dir(scratch));
    grade_jail_close(&j);
    assert_false(paths_is_dir(scratch));
    o.sandbox = GRADE_SANDBOX_NONE;
    assert_true(grade_jail_open(&j, &o, "/ws", labs, 1, false, NULL, &e));
    cmd = grade_jail_command(&j);
    assert_string_equal(cmd[1], "worker");
    assert_null(cmd[2]);
    grade_jail_close(&j);
    grade_sandbox s;
    assert_true(grade_sandbox_from_name("landlock", &s));
    assert_int_equal(s, GRADE_SANDBOX_LANDLOCK);
    assert_false(grade_sandbox_from_name("chroot", &s));
    assert_string_equal(grade_sandbox_name(GRADE_SANDBOX_NAMESPACES), "namespaces");
}

/* The namespace level's command: every namespace, no terminal, no
 * environment but the one given, the key's file covered where a bound
 * folder holds it, the worker confined inside. */
static void test_namespace_command(void **state)
{
    (void)state;
    char why[512];
    if (!bwrap_works(why, sizeof why))
        fail_msg("%s", why);
    cl_err e = {{0}};
    static grade_jail j;
    char key_in_ws[CL_PATH_MAX + 32];
    snprintf(key_in_ws, sizeof key_in_ws, "%s/grade.key", g_ws);
    assert_true(ts_write(key_in_ws, SECRET));
    grade_opts o = {.sandbox = GRADE_SANDBOX_NAMESPACES, .key_path = key_in_ws};
    assert_true(grade_jail_open(&j, &o, g_ws, NULL, 0, false, NULL, &e));
    const char *const *cmd = grade_jail_command(&j);
    bool all = false, session = false, clear = false, hidden = false, confine = false;
    for (size_t i = 0; cmd[i]; i++) {
        all |= strcmp(cmd[i], "--unshare-all") == 0;
        session |= strcmp(cmd[i], "--new-session") == 0;
        clear |= strcmp(cmd[i], "--clearenv") == 0;
        confine |= strcmp(cmd[i], "--confine") == 0;
        hidden |= strcmp(cmd[i], "/dev/null") == 0 && cmd[i + 1] &&
                  ts_contains(cmd[i + 1], "grade.key");
        assert_false(ts_contains(cmd[i], SECRET));
    }
    assert_true(all && session && clear && hidden && confine);
    grade_jail_close(&j);
    unlink(key_in_ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_levels),
                                       cmocka_unit_test(test_namespace_command),
                                       cmocka_unit_test(test_python_probes)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
