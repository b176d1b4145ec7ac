#!/bin/sh
# bench/tui-capture.sh - screens of the real terminal lab, for review.
#
#   bench/tui-capture.sh OUT_DIR [CUDALAB_EXE]
#
# Starts cudalab in a detached tmux session (tmux is taken from PATH; on a
# machine without it, put a tmux binary's folder on PATH and its libraries
# on LD_LIBRARY_PATH), then, as a learner would:
#   1. opens the reduction lab and presses R; waits until the run is over
#      (the status bar stops saying "running" and the last row has its mark),
#      at most REDUCTION_WAIT seconds (default 120);
#   2. opens the profiling lab and presses R; waits the same way, at most
#      PROFILING_WAIT seconds (default 900: every experiment, then the
#      pipeline);
#   3. shows the end of its table, that run's timeline (t), zoomed in with an
#      item selected, and the roofline (f).
# Every screen is written to OUT_DIR as NAME.txt (plain) and NAME.ansi (with
# colours: `cat` it in a terminal); OUT_DIR/capture.log says what happened.
#
# Run it from the repository root (CUDALAB_HOME defaults to it).  CUDALAB_EXE
# defaults to build/cudalab.  TUI_COLS x TUI_ROWS sets the terminal (default
# 160x48).  Data and workspace folders are fresh temporary ones unless
# XDG_DATA_HOME / CUDALAB_WORKSPACE are set; CUDALAB_TIMELINE_FILE, when set,
# is passed on (the timeline shown when the run recorded none).  Without a
# GPU every step still runs and the screens say "no CUDA device found".
# Exit status: 0 when every step ran, 1 when the lab did not start or quit
# cleanly or a run did not end in time, 2 for bad arguments, 3 for a missing
# tool.
set -u

if [ $# -lt 1 ]; then
    echo "usage: bench/tui-capture.sh OUT_DIR [CUDALAB_EXE]" >&2
    exit 2
fi
out=$1
exe=${2:-${CUDALAB_EXE:-build/cudalab}}
home=${CUDALAB_HOME:-$(pwd)}
cols=${TUI_COLS:-160}
rows=${TUI_ROWS:-48}
red_wait=${REDUCTION_WAIT:-120}
prof_wait=${PROFILING_WAIT:-900}

if ! command -v tmux >/dev/null 2>&1; then
    echo "tui-capture.sh: tmux is not on PATH" >&2
    exit 3
fi
if [ ! -x "$exe" ]; then
    echo "tui-capture.sh: no cudalab executable at '$exe'" >&2
    exit 3
fi
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
home=$(cd "$home" && pwd)
if [ ! -d "$home/labs" ]; then
    echo "tui-capture.sh: $home has no labs/ folder: run from the repository root or set CUDALAB_HOME" >&2
    exit 3
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/capture.log"
: > "$log"
note() { echo "$*" | tee -a "$log"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-capture.XXXXXX")
data=${XDG_DATA_HOME:-$tmp/data}
ws=${CUDALAB_WORKSPACE:-$tmp/ws}
sock="cudalab-capture-$$"
T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
    T kill-server >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# a terminal type this machine's ncurses knows
term=xterm-256color
for t in tmux-256color screen-256color xterm-256color screen xterm; do
    if infocmp "$t" >/dev/null 2>&1; then
        term=$t
        break
    fi
done

screen="$tmp/screen.txt"
grab() { T capture-pane -p -t cap > "$screen" 2>/dev/null; }
has() { grep -F -q -- "$1" "$screen"; }
keys() { T send-keys -t cap "$@"; sleep 0.4; }
# save NAME: the screen as it is now, plain and with colours
save() {
    T capture-pane -p -t cap > "$out/$1.txt" 2>/dev/null
    T capture-pane -p -e -t cap > "$out/$1.ansi" 2>/dev/null
    note "captured $1"
}
# wait_for TEXT SECONDS
wait_for() {
    n=0
    while [ $n -lt $(( $2 * 5 )) ]; do
        grab
        if has "$1"; then
            return 0
        fi
        sleep 0.2
        n=$((n + 1))
    done
    return 1
}
# The status bar (last line) says "running" while a run goes on.
running() { tail -n 1 "$screen" | grep -q "running"; }
# wait_run NAME SECONDS: waits for a run to start, then to end with a mark
# on the last row of the table; notes how long it took.
wait_run() {
    n=0
    while [ $n -lt 50 ]; do
        grab
        running && break
        sleep 0.2
        n=$((n + 1))
    done
    start=$(date +%s)
    while :; do
        grab
        if ! running; then
            break
        fi
        if [ $(( $(date +%s) - start )) -ge "$2" ]; then
            note "$1: still running after $2 s; capturing as it is"
            return 1
        fi
        sleep 1
    done
    # the learner's row, the table's last: its check mark (or why it failed)
    last=$(grep -E '(│|\|)  your kernel ' "$screen" | tail -n 1 | sed -e 's/^.*  your kernel /your kernel /' \
           -e 's/\(✓\|✗\|∅\|NaN\|! error\).*$/\1/' -e 's/[│|].*$//' -e 's/[[:space:]][[:space:]]*/ /g')
    note "$1: run over after $(( $(date +%s) - start )) s; ${last:-the last row is scrolled out of view}"
    return 0
}
# position of a lab in the list
lab_at() { CUDALAB_HOME="$home" "$exe" list 2>/dev/null | awk -v id="$1" 'NR > 1 && $2 == id { print NR - 1 }'; }
# select_lab N: from the lab list pane
select_lab() {
    keys g
    k=1
    while [ "$k" -lt "$1" ]; do keys j; k=$((k + 1)); done
}

red_at=$(lab_at reduction)
prof_at=$(lab_at profiling)
note "cudalab: $exe"
note "labs from: $home; terminal $cols x $rows ($term)"
note "data: $data; workspace: $ws"
"$exe" --version 2>/dev/null | tee -a "$log" >/dev/null

T new-session -d -s cap -x "$cols" -y "$rows" \
    "env TERM=$term LANG=C.UTF-8 LC_ALL=C.UTF-8 CUDALAB_HOME='$home' XDG_DATA_HOME='$data' \
     CUDALAB_WORKSPACE='$ws' ${CUDALAB_TIMELINE_FILE:+CUDALAB_TIMELINE_FILE='$CUDALAB_TIMELINE_FILE'} '$exe'; \
     echo \"cudalab exited with \$?\"; sleep 600"
T set-option -t cap -g status off >/dev/null 2>&1
T resize-window -t cap -x "$cols" -y "$rows" >/dev/null 2>&1
if ! wait_for "Labs" 30; then
    save 00-failed-start
    note "the terminal lab did not start"
    exit 1
fi
wait_for "Device" 10
sleep 2                    # the worker's hello: the device panel fills in
grab
save 01-start

status=0
# ---- the reduction lab ---------------------------------------------------------
if [ -n "$red_at" ]; then
    select_lab "$red_at"
    keys R
    wait_run reduction "$red_wait" || status=1
    save 02-reduction-run
    keys v                 # the speedup chart in the table's place, where they share the pane
    save 03-reduction-chart
    keys v
else
    note "no reduction lab"
    status=1
fi

# ---- the profiling lab ------------------------------------------------------------
if [ -n "$prof_at" ]; then
    select_lab "$prof_at"
    keys R
    wait_run profiling "$prof_wait" || status=1
    save 04-profiling-run
    keys Tab               # the end of its table: the pipeline's rows
    keys Tab
    keys G
    save 05-profiling-run-end
    keys g
    keys Tab
    keys Tab
    keys t
    if wait_for "Timeline:" 10; then
        save 06-timeline
        keys +
        keys +
        keys Tab
        save 07-timeline-zoomed
        keys Escape
    else
        grab
        save 06-no-timeline
        note "no timeline to show: none was recorded (see the message area in 06-no-timeline)"
    fi
    keys f
    wait_for "Roofline:" 10
    save 08-roofline
    keys Escape
else
    note "no profiling lab"
    status=1
fi

keys q
if wait_for "cudalab exited with 0" 10; then
    note "quit cleanly"
else
    grab
    note "did not quit cleanly: $(tail -n 1 "$screen")"
    status=1
fi
exit $status
