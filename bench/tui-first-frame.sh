#!/usr/bin/env bash
# bench/tui-first-frame.sh - how long the terminal lab takes to draw its first
# frame with a progress store of RUNS runs (default 10,000) and with none.
#
#   bench/tui-first-frame.sh BUILD_DIR [RUNS]
#
# Fills a store with BUILD_DIR/bench/storebench, then starts BUILD_DIR/cudalab
# in a tmux window five times each way and polls the screen every 2 ms until
# the lab list shows.  The figures include tmux's own delay, so they are an
# upper bound of the lab's.
set -u
build=$(cd "$1" && pwd)
runs=${2:-10000}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-frame.XXXXXX")
n=0
trap 'rm -rf "$work"' EXIT
"$build/bench/storebench" "$runs" "$work/full/cudalab" | sed 's/^/storebench: /'
mkdir -p "$work/empty"

first_frame() {  # DATA_HOME -> milliseconds until "Labs" shows (-1: never, in 10 s)
    n=$((n + 1))
    sock="cudalab-frame-$$-$n"
    start=$(date +%s%N)
    tmux -L "$sock" -f /dev/null new-session -d -s f -x 120 -y 34 \
        "env TERM=tmux-256color LANG=C.UTF-8 CUDALAB_HOME='$root' XDG_DATA_HOME='$1' \
         CUDALAB_WORKSPACE='$work/ws' '$build/cudalab'; sleep 60"
    ms=-1
    while [ $(( ($(date +%s%N) - start) / 1000000 )) -lt 10000 ]; do
        if tmux -L "$sock" capture-pane -p -t f 2>/dev/null | grep -q "Labs"; then
            ms=$(( ($(date +%s%N) - start) / 1000000 ))
            break
        fi
        sleep 0.002
    done
    tmux -L "$sock" kill-server >/dev/null 2>&1
    echo "$ms"
}

for which in empty full; do
    best=999999
    for i in 1 2 3 4 5; do
        ms=$(first_frame "$work/$which")
        [ "$ms" -ge 0 ] && [ "$ms" -lt "$best" ] && best=$ms
    done
    echo "first frame with the $which store: $best ms (best of 5)"
done
