# A hostile learner's Python, run in the grading sandbox by
# tests/grade/test_sandbox.c: each probe tries to reach one thing that must
# stay out of reach and prints "blocked: why" or "REACHED: what".  One JSON
# object on stdout.
import json
import os
import socket
import sys

(key_path, grader_pid, secret, unix_path, abstract_name, tcp_port, cache_file,
 grader_cache, other_file, shm_name) = sys.argv[1:11]
out = {}
if cache_file == "-":
    cache_file = os.environ.get("XDG_CACHE_HOME", "/nonexistent") + "/cudalab/cpu_baselines.json"


def probe(name):
    def wrap(fn):
        try:
            got = fn()
            out[name] = "REACHED: " + str(got)[:200] if got else "blocked: nothing found"
        except BaseException as ex:  # a refusal is what we hope for
            out[name] = "blocked: " + type(ex).__name__ + ": " + str(ex)[:160]
        return fn
    return wrap


@probe("key_variable")
def _():
    return [k for k, v in os.environ.items() if secret in v or k.startswith("CUDALAB_GRADE")]


@probe("key_file")
def _():
    with open(key_path) as f:
        return f.read()


@probe("grader_proc")
def _():
    found = []
    for pid in os.listdir("/proc"):
        # this script's own command line holds the secret it looks for
        if not pid.isdigit() or pid == str(os.getpid()):
            continue
        for part in ("environ", "cmdline"):
            try:
                with open("/proc/%s/%s" % (pid, part), "rb") as f:
                    if secret.encode() in f.read():
                        found.append(pid + "/" + part)
            except OSError:
                pass
    try:
        with open("/proc/%s/environ" % grader_pid, "rb") as f:
            data = f.read()
        if b"CUDALAB_GRADE" in data or secret.encode() in data:
            found.append("grader " + grader_pid)
    except OSError:
        pass
    return found


@probe("other_processes")
def _():
    mine = {str(os.getpid()), str(os.getppid())}
    names = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid not in mine:
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read().split(b"\0")[0].decode(errors="replace")
            except OSError:
                continue
            if os.path.basename(cmd) not in ("bwrap", "sh", "python3") and cmd:
                names.append(cmd)
    return names


@probe("unix_socket_path")
def _():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(unix_path)
    s.sendall(b"hello from the sandbox")
    return "connected to " + unix_path


@probe("unix_socket_abstract")
def _():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect("\0" + abstract_name)
    s.sendall(b"hello from the sandbox")
    return "connected to @" + abstract_name


@probe("tcp_outside")
def _():
    s = socket.create_connection(("127.0.0.1", int(tcp_port)), timeout=2)
    s.sendall(b"hello from the sandbox")
    return "connected to 127.0.0.1:" + tcp_port


@probe("terminal_tiocsti")
def _():
    import fcntl
    import termios
    done = []
    for fd in (0, 1, 2):
        try:
            fcntl.ioctl(fd, termios.TIOCSTI, b"x")
            done.append("fd %d" % fd)
        except OSError:
            pass
    try:
        fd = os.open("/dev/tty", os.O_RDWR)
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
        done.append("/dev/tty")
    except OSError:
        pass
    return done


@probe("controlling_terminal")
def _():
    fd = os.open("/dev/tty", os.O_RDWR)
    return "opened /dev/tty (fd %d)" % fd


@probe("dev_shm_persists")
def _():
    # written inside; the test checks that it is not there afterwards
    with open("/dev/shm/" + shm_name, "w") as f:
        f.write(secret)
    return ""


@probe("core_pattern")
def _():
    with open("/proc/sys/kernel/core_pattern", "w") as f:
        f.write("|/bin/false")
    return "opened core_pattern for writing"


@probe("etc_shadow")
def _():
    with open("/etc/shadow") as f:
        return f.readline()[:20]


@probe("baseline_cache_write")
def _():
    if not os.path.isfile(cache_file):
        return "the CPU baselines are not where the sandbox should read them: " + cache_file
    with open(cache_file, "a") as f:
        f.write("poisoned")
    return "wrote " + cache_file


@probe("grader_cache")
def _():
    return os.listdir(grader_cache)


@probe("other_learner")
def _():
    with open(other_file) as f:
        return f.read()


@probe("subprocess_key")
def _():
    import subprocess
    r = subprocess.run(["/bin/sh", "-c", "cat '%s'" % key_path], capture_output=True, timeout=10)
    return r.stdout.decode(errors="replace")


@probe("network_interfaces")
def _():
    return [n for _, n in socket.if_nameindex() if n != "lo"]


sys.stdout.write(json.dumps(out) + "\n")
