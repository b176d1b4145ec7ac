#!/usr/bin/env bash
# `cmake --install` puts the binary in bin/ and the labs, Lua library and
# assets in share/cudalab/, and the installed binary finds them there.
set -euo pipefail
build=$1
prefix=$(mktemp -d /tmp/cudalab-install-XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for p in bin/cudalab share/cudalab/lua/lab.lua share/cudalab/labs/reduction/lab.lua share/cudalab/assets; do
    [ -e "$prefix/$p" ] || { echo "missing after install: $p"; exit 1; }
done
unset CUDALAB_HOME
doctor=$("$prefix/bin/cudalab" doctor --json || true)   # exit 3 without a GPU
home=$(printf '%s\n' "$doctor" | grep -A1 '"home"' | sed -n 's/.*"path":[[:space:]]*"\(.*\)".*/\1/p')
case "$home" in
    "$prefix/share/cudalab") ;;
    *) echo "installed binary used '$home', expected $prefix/share/cudalab"; exit 1 ;;
esac
"$prefix/bin/cudalab" list | grep -q reduction
"$prefix/bin/cudalab" check >/dev/null
echo "installed to $prefix: binary finds its labs in $home"
