/* pyenv.h - python3 for the Python rows of a lab (lua/problems.md, "Python
 * rungs"; lua/exercise.md, "A Python exercise").
 *
 * cudalab itself needs no Python.  A lab's Python rows run in a python3
 * child (python/cudalab_bridge.py) when one can be found and it imports
 * CuPy and Numba's CUDA target; otherwise each such row says what is
 * missing and what to install.  python3 is $CUDALAB_PYTHON when set (a
 * path, or a name looked up in $PATH), else python3 from $PATH.  The probe
 * runs `python3 -I -B` (no user site, no PYTHON* variables, no bytecode
 * written) once a process, with a time limit, and its answer is kept. */
#ifndef CUDALAB_LAB_PYENV_H
#define CUDALAB_LAB_PYENV_H

#include <stdbool.h>
#include <stddef.h>

#include "core/paths.h"

/* The pip packages a Python row needs (CuPy built for CUDA 13, and Numba's
 * CUDA target, which brings Numba). */
#define PYENV_INSTALL "pip install cupy-cuda13x 'numba-cuda[cu13]'"
/* The variable naming the python3 to use. */
#define PYENV_VAR "CUDALAB_PYTHON"
/* Seconds the probe may take (importing CuPy loads CUDA's libraries). */
#define PYENV_PROBE_S 30.0

typedef struct pyenv {
    bool found;                   /* a python3 that runs */
    char python[CL_PATH_MAX];     /* its path */
    char version[32];             /* "3.12.3" */
    char why[512];                /* when !found: why ("python3 not found in PATH ...") */
    bool cupy, numba;             /* each imports */
    char cupy_version[32], numba_version[32];
    char cupy_error[256], numba_error[256];   /* the import's error, when not */
} pyenv;

/* The python3 to use into out; false + why ("CUDALAB_PYTHON names ...,
 * which is not an executable file") when there is none. */
bool pyenv_find(char *out, size_t out_size, char *why, size_t wn);
/* Probes python3 (imports cupy and numba.cuda) into env; never fails: env
 * says what was found. */
void pyenv_probe_into(pyenv *env);
/* The probe, run once a process and kept (again when $CUDALAB_PYTHON
 * changes). */
const pyenv *pyenv_probe(void);
/* Why a Python row cannot run with env ("" and false when it can): a row
 * needs CuPy, and Numba when needs_numba.  The message starts with
 * "unavailable: " and ends with what to install. */
bool pyenv_unavailable(const pyenv *env, bool needs_numba, char *msg, size_t msg_size);
/* The folders python3 imports from (its prefixes and sys.path), without
 * importing anything: those that exist and are system folders (not below
 * $HOME, /home, /root or the temporary folders), each a malloc'd string in
 * out[0..max); returns how many. */
size_t pyenv_import_dirs(char **out, size_t max);
/* For the grading sandbox (grade/grade_sandbox.c): python3's own
 * sys.executable into exe (not a shim such as pyenv's, which is a script,
 * and not resolved either: a virtual environment's bin/python3 is a link
 * to its base interpreter, and only started by its own path does it find
 * its pyvenv.cfg and its packages), and every absolute folder it
 * imports from (its prefixes, its bin/ and sys.path, home folders
 * included: the caller chooses what to bind) with the real executable
 * among them; malloc'd strings, the count (0 without python3). */
size_t pyenv_sandbox_dirs(char *exe, size_t exe_size, char **out, size_t max);

/* The command line of a python3 child: `/usr/bin/env -i NAME=value...
 * python3 -I -B ARGS...`, in an environment of its own (the search paths,
 * the CUDA variables the worker has, HOME in cudalab's cache folder
 * (<cache>/python), CUPY_CACHE_IN_MEMORY=1 so CuPy writes no kernel cache, NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0 so Numba does not wait
 * for the stream at every launch on a CuPy array: every row uses the
 * default stream).  Without /usr/bin/env, python3 directly, in the
 * worker's environment. */
#define PYCMD_MAX_ENV 16   /* passed through and set: at most 9 + 1 */
#define PYCMD_MAX_ARGS 16
typedef struct pycmd {
    const char *argv[PYCMD_MAX_ENV + PYCMD_MAX_ARGS + 8];
    char *env[PYCMD_MAX_ENV];
    size_t nenv;
} pycmd;

/* Fills cmd for python with the arguments args (NULL-terminated, at most
 * PYCMD_MAX_ARGS); false when out of memory.  pycmd_free frees it. */
bool pycmd_init(pycmd *cmd, const char *python, const char *const *args);
void pycmd_free(pycmd *cmd);

#endif
