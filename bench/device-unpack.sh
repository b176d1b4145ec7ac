#!/usr/bin/env bash
# bench/device-unpack.sh - on the GPU machine: lays out what
# bench/device-pack.sh packed, flat in BIN_DIR as bench/gpu-run.sh wants it
# (BIN_DIR/lib for the libraries), and puts bwrap on PATH when the machine
# has none (source it to keep PATH).
#
#   . bench/device-unpack.sh PACK_DIR BIN_DIR
pack=$1
bin_dir=$2
mkdir -p "$bin_dir/lib"
tar -xJf "$pack/bins.tar.xz" -C "$bin_dir" --transform 's|.*/||'
cp "$pack"/lib/* "$bin_dir/lib/"
if ! command -v bwrap >/dev/null 2>&1; then
    mkdir -p /tmp/cudalab-bwrap
    cp "$pack/bwrap" /tmp/cudalab-bwrap/bwrap
    chmod 755 /tmp/cudalab-bwrap/bwrap
    export PATH="/tmp/cudalab-bwrap:$PATH"
fi
