#!/usr/bin/env bash
# bench/device-pack.sh - packs a built tree for a GPU machine that cannot
# build cudalab (no Lua or ncurses headers) and may lack bubblewrap.
#
#   bench/device-pack.sh BUILD_DIR PACK_DIR
#
# Writes PACK_DIR/bins.tar.xz (cudalab, the GPU test programs, the sandbox
# and exploit tests, one xz stream so their shared kernels pack once),
# PACK_DIR/lib (the shared libraries they and bwrap load that a CUDA image
# may lack) and PACK_DIR/bwrap.  On the GPU machine, bench/device-unpack.sh
# PACK_DIR BIN_DIR lays them out for bench/gpu-run.sh.
set -euo pipefail
build=$(cd "$1" && pwd)
mkdir -p "$2/lib"
pack=$(cd "$2" && pwd)
cd "$build"
files=(cudalab)
while read -r t; do
    f=$(find tests -type f -name "$t" -perm -u+x | head -1)
    [ -n "$f" ] && files+=("$f")
done < <( { ctest -N -L gpu | awk '/Test *#/ {print $3}'; echo test_sandbox; echo test_exploits; } )
tar -cf - "${files[@]}" | xz -9 -T2 > "$pack/bins.tar.xz"
for l in libncursesw.so.6 libtinfo.so.6 libcjson.so.1 libsqlite3.so.0 libmd4c.so.0 \
         libcrypto.so.3 libcmocka.so.0 libselinux.so.1 libcap.so.2 libpcre2-8.so.0; do
    cp -L "/lib/x86_64-linux-gnu/$l" "$pack/lib/"
done
cp "$(command -v bwrap)" "$pack/bwrap"
ls -la "$pack" "$pack/lib"
