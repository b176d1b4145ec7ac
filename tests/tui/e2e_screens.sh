#!/bin/sh
# End-to-end checks of what the terminal lab fits on the screen, through
# tmux (helpers in e2e_lib.sh):
#   - lab titles at 80, 120 and 200 columns: whole, or cut with "…";
#   - 25 problems with a folder of labs can all be read in the messages view;
#   - with --ascii the median column is never cut ("69.9 us +-1.5%");
#   - after a resize the run table shows the selected row, and as many rows
#     as fit;
#   - the timeline that ships with cudalab says so, and its export too;
#   - e refuses to open the editor when your copy cannot be made;
#   - "terminal too small" reads whole in a tiny terminal.
set -u
. "$(cd "$(dirname "$0")" && pwd)/e2e_lib.sh"

if ! CUDALAB_HOME="$home" "$exe" list > "$work/list.txt" 2> "$work/list.err"; then
    echo "FAIL: '$exe list' failed:"
    cat "$work/list.err"
    exit 1
fi
awk 'NR > 1 && NF >= 7 { t = ""; for (i = 3; i <= NF - 4; i++) t = t (t ? " " : "") $i; print t }' \
    "$work/list.txt" > "$work/titles"

cat > "$work/editor" <<'ED'
#!/bin/sh
touch "$(dirname "$0")/editor-ran"
echo "// edited by the end-to-end test" >> "$1"
ED
chmod +x "$work/editor"

clip() {  # first N characters of a text
    printf '%s' "$1" | cut -c1-"$2"
}

# ---- lab titles at 80, 120 and 200 columns ---------------------------------------------
# A title shows whole, or as its beginning followed by "…"; never cut bare.
check_titles() {  # COLS
    bad=0
    scan_list "$(wc -l < "$work/titles")"
    while IFS= read -r t; do
        has_listed "$t" && continue
        head=$(clip "$t" 8)
        shown=$(grep -F -m1 -- "$head" "$list_file" | sed -n "s/.*\($head[^…│]*\)….*/\1/p")
        case "$t" in
            "$shown"*) [ -n "$shown" ] && continue ;;
        esac
        fail "$1 columns: lab title '$t' is cut without an ellipsis"
        bad=1
    done < "$work/titles"
    [ $bad = 0 ] && pass "$1 columns: every lab title is whole or ends in …"
}
for size in "80 24" "120 30" "200 50"; do
    set -- $size
    start_tui "$1" "$2"
    wait_for "Labs" 20 || fail "$1x$2: no lab list"
    check_titles "$1"
done
# at 200 columns every shipped title reads whole
whole=1
while IFS= read -r t; do has_listed "$t" || whole=0; done < "$work/titles"
[ $whole = 1 ] && pass "200 columns: every lab title reads whole" || fail "200 columns: a lab title is cut"
wait_gone "probing the GPU" 30 || fail "the device was never reported"
snapshot titles-200x50

# ---- 25 problems with a folder of labs, all readable -------------------------------------
mkdir -p "$work/badlabs"
i=1
while [ $i -le 25 ]; do
    n=$(printf '%02d' $i)
    mkdir -p "$work/badlabs/bad$n"
    cat > "$work/badlabs/bad$n/lab.lua" <<EOF
return lab {
  id = "bad$n", title = "Broken lab $n", problem = "reduce_sum", sizes = { "2^20" },
  steps = { step "One" [[ text ]] },
  variants = { variant { id = "ghost", title = "Ghost", kernel = "reduce_ghost_$n" } },
}
EOF
    i=$((i + 1))
done
tui_args="--labs '$work/badlabs'"
start_tui 100 30
tui_args=
wait_for "Labs" 20 || fail "with broken labs: no lab list"
wait_gone "probing the GPU" 30 || fail "with broken labs: the device was never reported"
has "m: all" && pass "the messages pane offers m" || fail "the messages pane does not offer m"
keys m
if wait_for "PgUp/PgDn scroll" 5; then pass "m opens every message"; else fail "m did not open the messages"; fi
keys g
seen=" "
for round in 1 2 3 4 5 6; do
    capture
    for n in $(grep -o 'bad[0-9][0-9]/lab.lua:4' "$screen_file" | cut -c4-5); do
        case "$seen" in *" $n "*) ;; *) seen="$seen$n " ;; esac
    done
    keys NPage
done
count=$(echo $seen | wc -w | tr -d ' ')
[ "$count" = 25 ] && pass "all 25 lab problems can be read, with file:line" || fail "read $count of 25 lab problems: $seen"
snapshot messages
keys Escape
wait_gone "PgUp/PgDn scroll" 5 && pass "Esc closes the messages" || fail "Esc did not close the messages"

# ---- ASCII: the median column is not cut ---------------------------------------------------
tui_args=--ascii
start_tui 100 30
tui_args=
wait_for "Labs" 20 || fail "ascii: no lab list"
select_lab_id reduction   # a lab with CPU rows
keys r
i=0
while [ $i -lt 600 ]; do
    capture
    grep -E -q 'CPU 1 thread +[0-9.]+ (ns|us|ms|s) ' "$screen_file" && break
    sleep 0.1
    i=$((i + 1))
done
wait_gone "running" 120 || fail "ascii: the run did not finish"
wait_gone "probing the GPU" 30 || fail "ascii: the device was never reported"
capture
if grep -E -q '[0-9] (ns|us|ms|s) \+-[0-9.]+%' "$screen_file" &&
   ! grep -E -q '[0-9] (ns|us|ms|s) \+-[0-9.]*(\.\.\.|~)' "$screen_file"; then
    pass "ascii: medians read whole with their spread ($(grep -E -o '[0-9.]+ (ns|us|ms|s) \+-[0-9.]+%' "$screen_file" | head -1))"
else
    fail "ascii: a median or its spread is cut"
fi
snapshot ascii-run

# ---- after a resize the selected row stays in sight ------------------------------------------
start_tui 100 30
wait_for "Labs" 20 || fail "resize: no lab list"
select_lab_id reduction
first=$(CUDALAB_HOME="$home" "$exe" __complete run reduction --variant "" | head -1)
keys Tab
keys Tab
keys End
T resize-window -t e2e -x 100 -y 18; sleep 0.7
capture
has "your kernel" && pass "resize to 18 rows: the selected last row is shown" || fail "resize to 18 rows: the selected row scrolled away"
T resize-window -t e2e -x 100 -y 45; sleep 0.7
capture
if has "your kernel" && has "│  $first "; then
    pass "resize to 45 rows: every row shows again, '$first' to 'your kernel'"
else
    fail "resize to 45 rows: the table did not scroll back ('$first' .. 'your kernel')"
fi

# ---- the shipped timeline says what it is ---------------------------------------------------------
tui_env="XDG_DATA_HOME='$work/fresh-data' XDG_CACHE_HOME='$work/fresh-data'"
start_tui 120 34
tui_env=
wait_for "Labs" 20 || fail "timeline: no lab list"
keys g
keys G
keys t
if wait_for "sample shipped with cudalab, not your GPU" 10; then
    pass "the shipped timeline's title says it is a sample"
else
    fail "the shipped timeline does not say it is a sample"
fi
keys T
wait_for "trace of the shipped sample written to" 10 && pass "its export says so" || fail "the export does not say it is the sample"
trace=$(ls "$work"/ws/profiling/timeline-sample-*.json 2>/dev/null | head -1)
if [ -n "$trace" ] && grep -q '"note":"a sample recorded on' "$trace"; then
    pass "the exported file keeps the note, in its name and its content ($(basename "$trace"))"
else
    fail "the exported sample has no note in its name or content: '$trace'"
fi
keys Escape

# ---- e refuses when your copy cannot be made ------------------------------------------------------
printf 'not a folder\n' > "$work/plainfile"
tui_env="CUDALAB_WORKSPACE='$work/plainfile/ws'"
start_tui 100 30
tui_env=
wait_for "Labs" 20 || fail "edit: no lab list"
keys g
keys e
if wait_for "the editor was not opened" 5; then pass "e says the editor was not opened"; else fail "e did not say why"; fi
sleep 0.5
[ -e "$work/editor-ran" ] && fail "the editor ran without your copy" || pass "the editor did not run"
keys m
wait_for "Fix the workspace folder" 5 && pass "and says where to fix it" || fail "no word on where to fix it"
keys Escape

# ---- terminal too small, in a tiny terminal -----------------------------------------------------
start_tui 100 30
wait_for "Labs" 20 || fail "tiny: no lab list"
for size in "30 6" "20 4"; do
    set -- $size
    T resize-window -t e2e -x "$1" -y "$2"
    wait_for "terminal too small" 10   # the redraw may lag on a loaded machine
    if has "terminal too small" && has "q quits"; then
        pass "$1x$2: the too-small notice reads whole"
    else
        fail "$1x$2: the too-small notice is cut"
    fi
done

if [ $failures -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
