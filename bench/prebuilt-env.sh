# bench/prebuilt-env.sh - sourced by the scripts that run a prebuilt folder
# on a GPU machine (gpu-run.sh, mgpu-run.sh), with $bin (the folder) and
# $root (the repository) set: the shared libraries this machine lacks come
# from $bin/lib, and cudalab and its tests find the repository and the
# binary; one_test runs a test program into $out.
extra=/tmp/cudalab-extra-libs
mkdir -p "$extra"
for f in "$bin"/lib/*; do
    [ -e "$f" ] || continue
    n=$(basename "$f")
    ldconfig -p | grep -q "^[[:space:]]*$n " || cp "$f" "$extra/"
done
export LD_LIBRARY_PATH="$extra${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUDALAB_HOME="$root" CUDALAB_TEST_DATA="$root/tests" CUDALAB_EXE="$bin/cudalab"

# one_test PROGRAM: runs it (at most $test_timeout seconds, default 540),
# its output into $out/<name>.txt, and prints "=== <name>: <verdict> in
# <ms> ms", a skipped program's first line after it
one_test() {
    name=$(basename "$1")
    start=$(date +%s%N)
    timeout "${test_timeout:-540}" "$1" >"$out/$name.txt" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    note=""
    case $rc in
        0) verdict=passed ;;
        77) verdict=skipped; note=" ($(head -1 "$out/$name.txt"))" ;;
        *) verdict="FAILED (exit $rc)" ;;
    esac
    echo "=== $name: $verdict in ${ms} ms$note"
}
