# bench/prebuilt-env.sh - sourced by the scripts that run a prebuilt folder
# on a GPU machine (gpu-run.sh, mgpu-run.sh), with $bin (the folder) and
# $root (the repository) set: the shared libraries this machine lacks come
# from $bin/lib, and cudalab and its tests find the repository and the
# binary.
extra=/tmp/cudalab-extra-libs
mkdir -p "$extra"
for f in "$bin"/lib/*; do
    [ -e "$f" ] || continue
    n=$(basename "$f")
    ldconfig -p | grep -q "^[[:space:]]*$n " || cp "$f" "$extra/"
done
export LD_LIBRARY_PATH="$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDALAB_HOME="$root" CUDALAB_TEST_DATA="$root/tests" CUDALAB_EXE="$bin/cudalab"
