#!/usr/bin/env bash
# cudalab.sh - build cudalab if needed, then open the lab or run the tests.
#
#   ./cudalab.sh [cudalab args]   build cudalab alone (build/) and start it with the args
#   ./cudalab.sh test [ctest args] build everything with ASan/UBSan (build-test/) and run
#                                  every test
#
# Missing Debian packages (the lab's; for `test` also the tests' own) are
# installed with apt-get when run as root; otherwise the exact apt-get line is
# printed and nothing else happens.
# The lab's build compiles its kernels for the GPUs this machine has (read from
# nvidia-smi), or for Hopper (90, which the other generations newer than it
# run through its PTX) when it has none; the tests' build for every generation
# the project supports.  Environment: CUDA_ARCHS (e.g. "90", "80;90" or
# "native") sets the GPU targets of a first build; JOBS sets build parallelism.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lab_packages=(build-essential cmake pkg-config libncurses-dev liblua5.4-dev libcjson-dev
              libsqlite3-dev libssl-dev libmd4c-dev libcmocka-dev libxml2-utils tmux bubblewrap)
# Only the tests need these: a private Slurm runs the README's job-array
# script (tests/grade/test_slurm.sh).
test_packages=(slurm-wlm munge)

# missing_packages PACKAGE...: those not installed, one a line.
missing_packages() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
}

# ensure_packages PACKAGE...: installs the missing ones (root) or prints how.
ensure_packages() {
    local missing
    missing=$(missing_packages "$@" | tr '\n' ' ')
    [ -z "${missing// /}" ] && return 0
    if [ "$(id -u)" -eq 0 ]; then
        echo "cudalab: installing missing packages: $missing" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing >&2
    else
        echo "cudalab: these Debian packages are missing. Install them with:" >&2
        echo "  sudo apt-get install -y $missing" >&2
        exit 3
    fi
}

ensure_nvcc() {
    if ! command -v nvcc >/dev/null 2>&1; then
        local d
        for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
            if [ -x "$d/nvcc" ]; then
                export PATH="$d:$PATH"
                break
            fi
        done
    fi
    if ! command -v nvcc >/dev/null 2>&1; then
        echo "cudalab: the CUDA toolkit (nvcc) was not found. Install it from NVIDIA's" >&2
        echo "  repository (package cuda-toolkit) and make sure nvcc is on PATH." >&2
        exit 3
    fi
}

# found_archs: the compute capabilities of this machine's GPUs as CMake
# architectures ("90", "80;90"), or nothing when no GPU answers.
found_archs() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
        tr -d ' .\r' | grep -E '^[0-9]+$' | sort -u | paste -sd';' -
}

# build DIR ARCHS TARGET [cmake options...]: configure once (for ARCHS, unless
# CUDA_ARCHS says otherwise; empty ARCHS: the project's default), then build
# TARGET ("all": everything) incrementally.
build() {
    local dir=$1 archs=${CUDA_ARCHS:-$2} target=$3
    shift 3
    local jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
    local opts=()
    [ -n "$archs" ] && opts=("-DCMAKE_CUDA_ARCHITECTURES=$archs")
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${opts[@]}" "$@" >&2
    fi
    cmake --build "$dir" --target "$target" -j "$jobs" >&2
}

if [ "${1:-}" = "test" ]; then
    ensure_packages "${lab_packages[@]}" "${test_packages[@]}"
else
    ensure_packages "${lab_packages[@]}"
fi
ensure_nvcc

if [ "${1:-}" = "test" ]; then
    shift
    build "$here/build-test" "" all -DCUDALAB_SANITIZE=ON
    cd "$here/build-test"
    exec ctest --output-on-failure --timeout 600 "$@"
fi

archs=$(found_archs)
if [ ! -f "$here/build/CMakeCache.txt" ]; then
    if [ -n "${CUDA_ARCHS:-}" ]; then
        echo "cudalab: building the lab for GPU architectures $CUDA_ARCHS (CUDA_ARCHS)" >&2
    elif [ -n "$archs" ]; then
        echo "cudalab: building the lab for this machine's GPUs (architectures $archs)" >&2
    else
        echo "cudalab: no GPU found; building the lab for Hopper (architecture 90)." >&2
        echo "  Set CUDA_ARCHS (e.g. CUDA_ARCHS=80) before the first build for another GPU." >&2
    fi
fi
build "$here/build" "${archs:-90}" cudalab
exec "$here/build/cudalab" "$@"
