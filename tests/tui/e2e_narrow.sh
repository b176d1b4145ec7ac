#!/bin/sh
# End-to-end test: at 60x16, 80x24 and 120x40 every lab's title and the
# selected milestone's text can be read whole somewhere on the screen (the
# lab list wraps the selected title where it has room, the lesson's border
# carries it otherwise; the selected milestone wraps in its pane).
#
#   CUDALAB_EXE, CUDALAB_HOME    as for e2e_tui.sh
set -u
. "$(cd "$(dirname "$0")" && pwd)/e2e_lib.sh"

if ! CUDALAB_HOME="$home" "$exe" list --json > "$work/list.json" 2> "$work/list.err"; then
    echo "FAIL: '$exe list --json' failed:"
    cat "$work/list.err"
    exit 1
fi
# Each lab's title (three tabs deep in cJSON's layout) and its first
# milestone's text, in the order the lab list shows them.
tab=$(printf '\t')
grep "^$tab$tab$tab\"title\":" "$work/list.json" |
    sed -e 's/^[^:]*:[[:space:]]*"//' -e 's/",*$//' > "$work/titles"
nlabs=$(wc -l < "$work/titles" | tr -d ' ')
awk '/"milestones":/ { want = 1 }
     want && /"text":/ { sub(/^[^:]*:[ \t]*"/, ""); sub(/",?$/, ""); print; want = 0 }' \
    "$work/list.json" > "$work/milestones"
if [ "$nlabs" -lt 1 ] || [ "$(wc -l < "$work/milestones" | tr -d ' ')" -ne "$nlabs" ]; then
    echo "FAIL: could not read each lab's title and first milestone from 'list --json'"
    exit 1
fi

# The left column's text (the lab list and the milestones), one line: the
# second field between box bars, less the selection arrow, the progress
# counts and the borders, joined with single spaces.
left_text() {
    awk -F'│' 'NF >= 3 { s = $2; sub(/^[▸ ]+/, "", s); sub(/ +[0-9]+\/[0-9]+ *$/, "", s);
                          sub(/^– /, "", s); gsub(/ +/, " ", s); sub(/ $/, "", s); printf "%s ", s }' \
        "$screen_file" | tr -s ' '
}
whole() {  # whole TEXT: on one screen line, or in the left column's joined text
    has "$1" && return 0
    left_text | grep -F -q -- "$1"
}

for size in "60 16" "80 24" "120 40"; do
    set -- $size
    # a data folder of its own, so each start begins at the first lab
    tui_env="XDG_DATA_HOME='$work/data-$1'" start_tui "$1" "$2"
    if ! wait_for "Labs" 20; then
        fail "${1}x$2: no lab list"
        continue
    fi
    k=1
    ok=1
    while [ $k -le "$nlabs" ]; do
        t=$(sed -n "${k}p" "$work/titles")
        wait_for "$t" 3 >/dev/null 2>&1 || true
        capture
        if ! whole "$t"; then
            fail "${1}x$2: the title '$t' cannot be read whole"
            ok=0
        fi
        [ $k -lt "$nlabs" ] && keys j
        k=$((k + 1))
    done
    [ $ok = 1 ] && pass "${1}x$2: all $nlabs lab titles read whole"
    # the last lab is selected: focus its milestones (Shift-Tab from the list)
    m=$(sed -n "${nlabs}p" "$work/milestones")
    keys BTab
    capture
    if [ -n "$m" ] && whole "$m"; then
        pass "${1}x$2: the selected milestone reads whole"
    else
        fail "${1}x$2: the selected milestone '$m' cannot be read whole"
    fi
    keys q
done

if [ $failures -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
