# e2e_lib.sh - what the end-to-end tests of the terminal UI share: a tmux
# server of their own, reading the screen, waiting for text, typing keys,
# and snapshots compared on their stable lines.  Sourced by e2e_*.sh, which
# set nothing before it; it reads
#   CUDALAB_EXE                  the cudalab binary (set by CTest)
#   CUDALAB_HOME                 folder with labs/, lua/, assets/
#   CUDALAB_UPDATE_SNAPSHOTS=1   rewrite tests/tui/snapshots/*.txt
# and exits 77 (skipped) when tmux is missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
snapdir="$here/snapshots"
exe=${CUDALAB_EXE:-}
home=${CUDALAB_HOME:-$(cd "$here/../.." && pwd)}

if ! command -v tmux >/dev/null 2>&1; then
    echo "SKIP: tmux is not installed"
    exit 77
fi
if [ -z "$exe" ] || [ ! -x "$exe" ]; then
    echo "FAIL: CUDALAB_EXE does not name an executable ('$exe')"
    exit 1
fi

# one tmux server (socket) per start of the UI, all killed at the end
starts=0
sock="cudalab-e2e-$$-0"
work=$(mktemp -d "${TMPDIR:-/tmp}/cudalab-e2e.XXXXXX")
TMUX_TMPDIR="$work"
export TMUX_TMPDIR
unset TMUX
T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
    k=0
    while [ $k -le $starts ]; do
        tmux -L "cudalab-e2e-$$-$k" kill-server >/dev/null 2>&1
        k=$((k + 1))
    done
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
    if [ -n "${screen_file:-}" ] && [ -f "$screen_file" ]; then
        echo "---- screen ----"
        cat "$screen_file"
        echo "----------------"
    fi
}
pass() { echo "ok: $*"; }

screen_file="$work/screen.txt"
capture() { T capture-pane -p -t e2e > "$screen_file" 2>/dev/null; }
has() { grep -F -q -- "$1" "$screen_file"; }

# wait_for TEXT [SECONDS]: polls the screen until TEXT shows.
wait_for() {
    limit=$(( ${2:-15} * 10 ))
    i=0
    while [ $i -lt "$limit" ]; do
        capture
        if has "$1"; then
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# wait_gone TEXT [SECONDS]
wait_gone() {
    limit=$(( ${2:-15} * 10 ))
    i=0
    while [ $i -lt "$limit" ]; do
        capture
        if ! has "$1"; then
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

keys() { T send-keys -t e2e "$@"; sleep 0.3; }

# scan_list N: the lab list scrolls when it is longer than its pane, so
# this moves its cursor down N-1 times and back, keeping every screen seen
# on the way in $list_file (has_listed TEXT greps it).  The cursor ends
# where it started, on the first lab.
list_file="$work/list-screens.txt"
scan_list() {
    capture
    cat "$screen_file" > "$list_file"
    k=1
    while [ $k -lt "$1" ]; do
        keys Down
        k=$((k + 1))
        wait_for "$k/$1 " 15  # the list's border counts the selected lab (a loaded
                              # machine may take seconds to redraw)
        cat "$screen_file" >> "$list_file"
    done
    while [ $k -gt 1 ]; do
        keys Up
        k=$((k - 1))
    done
    capture
}
has_listed() { grep -F -q -- "$1" "$list_file"; }

# select_lab_id ID: moves the lab list's cursor to the lab ID, by its position
# in 'cudalab list' (the order the list shows), from the top ('g').
select_lab_id() {
    at=$(CUDALAB_HOME="$home" "$exe" list 2>/dev/null | awk -v id="$1" 'NR > 1 && $2 == id { print NR - 1 }')
    keys g
    k=1
    while [ $k -lt "${at:-1}" ]; do keys j; k=$((k + 1)); done
}

# start_tui COLS ROWS: a fresh tmux server running cudalab in a COLS x ROWS
# window, with its data and workspace under $work and $work/editor as the
# editor; $tui_env, when set, adds NAME='value' settings to its environment
# (later ones win), and $tui_args arguments to cudalab's command line.
start_tui() {
    T kill-server >/dev/null 2>&1
    starts=$((starts + 1))
    sock="cudalab-e2e-$$-$starts"
    T new-session -d -s e2e -x "$1" -y "$2" \
        "env TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 CUDALAB_HOME='$home' \
         XDG_DATA_HOME='$work/data' XDG_CACHE_HOME='$work/cache' CUDALAB_WORKSPACE='$work/ws' EDITOR='$work/editor' VISUAL= \
         ${tui_env:-} '$exe' ${tui_args:-}; \
         echo \"cudalab exited with \$?\"; sleep 600"
    T set-option -t e2e -g status off >/dev/null 2>&1
    T resize-window -t e2e -x "$1" -y "$2" >/dev/null 2>&1
}

# What of a screen is worth comparing: every pane's top and bottom border,
# corner to corner, with the title and note written into it (this is where
# the panes sit and what they are called; lesson text never holds a
# corner), the status bar, the help text and the too-small notice.
# Numbers are masked and blanks squeezed, so timings never matter.
stable() {
    (
        export LC_ALL=C.UTF-8
        echo "# borders"
        grep -o '[┌└][^┌└┐┘│]*[┐┘]' "$1"
        echo "# text"
        grep -E '\? help|^Esc close  ' "$1"
        awk -F'│' '{ for (i = 1; i <= NF; i++)
                         if ($i ~ /too small|move up|next pane|run every variant|cancel the run|this help/)
                             print $i }' "$1"
    ) | sed -e 's/[0-9][0-9.]*/#/g' -e 's/[[:space:]][[:space:]]*/ /g'
}

# snapshot NAME: keeps the screen; compares its stable lines.
snapshot() {
    capture
    out="$snapdir/$1.txt"
    if [ "${CUDALAB_UPDATE_SNAPSHOTS:-0}" = 1 ]; then
        mkdir -p "$snapdir"
        cp "$screen_file" "$out"
        echo "snapshot written: $out"
        return
    fi
    if [ ! -f "$out" ]; then
        echo "note: no snapshot $out yet (run with CUDALAB_UPDATE_SNAPSHOTS=1)"
        return
    fi
    stable "$out" > "$work/want"
    stable "$screen_file" > "$work/got"
    if ! diff -u "$work/want" "$work/got" > "$work/diff"; then
        fail "screen '$1' differs from its snapshot in stable lines:"
        cat "$work/diff"
    else
        pass "snapshot $1"
    fi
}

