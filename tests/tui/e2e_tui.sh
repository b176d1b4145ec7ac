#!/bin/sh
# End-to-end test of the terminal UI: runs the real binary inside tmux,
# types keys and reads the screen as a learner would see it.
#
#   CUDALAB_EXE                  the cudalab binary (set by CTest)
#   CUDALAB_HOME                 folder with labs/, lua/, assets/
#   CUDALAB_UPDATE_SNAPSHOTS=1   rewrite tests/tui/snapshots/*.txt
#
# Snapshots keep whole screens for review; the comparison looks only at
# stable lines (pane borders with their titles, the status bar, help text),
# with digits masked, so timings never make it fail.
set -u
. "$(cd "$(dirname "$0")" && pwd)/e2e_lib.sh"

# ---- what the labs are, from the command line ------------------------------
if ! CUDALAB_HOME="$home" "$exe" list > "$work/list.txt" 2> "$work/list.err"; then
    echo "FAIL: '$exe list' failed:"
    cat "$work/list.err"
    exit 1
fi
# "#  id  title...  steps variants milestones exercises": the title is what lies
# between the id and the four counts.
awk 'NR > 1 && NF >= 7 { t = ""; for (i = 3; i <= NF - 4; i++) t = t (t ? " " : "") $i; print t }' \
    "$work/list.txt" > "$work/titles"
nlabs=$(wc -l < "$work/titles" | tr -d ' ')
if [ "$nlabs" -lt 1 ]; then
    echo "FAIL: no labs found by 'cudalab list'"
    exit 1
fi
title1=$(sed -n 1p "$work/titles")
title2=$(sed -n 2p "$work/titles")
nsteps1=$(awk 'NR == 2 { print $(NF - 3) }' "$work/list.txt")
# the second step's title, from the JSON listing ("steps": ["a", "b", ...])
step2=$(CUDALAB_HOME="$home" "$exe" list --json 2>/dev/null | grep -m1 '"steps":' |
        sed -e 's/^[^[]*\["//' -e 's/"\][^]]*$//' | awk -F'", "' '{ print $2 }')

# the learner's editor: appends a line to the file it is given
cat > "$work/editor" <<'ED'
#!/bin/sh
echo "// edited by the end-to-end test" >> "$1"
ED
chmod +x "$work/editor"

clip() {  # first N characters of a title (the lab list is narrow)
    printf '%s' "$1" | cut -c1-"$2"
}

# ---- start: the lab list --------------------------------------------------------
start_tui 100 30
if wait_for "Labs" 20; then pass "the lab list appears"; else fail "no lab list"; fi
ok=1
scan_list "$nlabs"
while IFS= read -r t; do
    if ! has_listed "$(clip "$t" 12)"; then
        fail "lab '$t' is not in the list"
        ok=0
    fi
done < "$work/titles"
[ $ok = 1 ] && pass "all $nlabs labs are listed"
shipped=$(ls "$home"/labs/*/lab.lua | wc -l | tr -d ' ')
if [ "$nlabs" -ne "$shipped" ]; then fail "expected the $shipped shipped labs, found $nlabs"; fi
if has "Lesson: $(clip "$title1" 30)"; then pass "the first lab's lesson shows"; else fail "lesson of '$title1' not shown"; fi
if wait_for "no CUDA device found" 30; then pass "no CUDA device found is shown"; else fail "device panel never says 'no CUDA device found'"; fi
has "step 1/$nsteps1" && pass "step indicator 1/$nsteps1" || fail "no 'step 1/$nsteps1'"
snapshot start

# ---- moving between labs and panes --------------------------------------------------
keys j
if wait_for "Lesson: $(clip "$title2" 30)" 5; then pass "j selects the next lab"; else fail "j did not select '$title2'"; fi
keys k
wait_for "Lesson: $(clip "$title1" 30)" 5 && pass "k goes back" || fail "k did not go back to '$title1'"
keys Tab
keys Tab
keys BTab
keys Tab
keys Tab
keys Tab
# back on the lab list after a full round
keys j
wait_for "Lesson: $(clip "$title2" 30)" 5 && pass "Tab cycles the panes" || fail "Tab did not cycle back to the lab list"
keys k

# ---- reading a lesson: next step ------------------------------------------------------
if [ "$nsteps1" -ge 2 ]; then
    keys n
    if wait_for "step 2/$nsteps1" 5; then pass "n moves to step 2"; else fail "n did not move to step 2"; fi
    if [ -n "$step2" ]; then
        has "$(clip "$step2" 30)" && pass "step 2's title shows" || fail "step 2 title '$step2' not shown"
    fi
    snapshot lesson-step2
    keys p
    wait_for "step 1/$nsteps1" 5 && pass "p goes back" || fail "p did not go back to step 1"
fi

# ---- help ----------------------------------------------------------------------------
# The screen before help opens, twice: lines that change on their own
# (a clock, a spinner) are left out of the comparison after it closes.
capture; cp "$screen_file" "$work/before1.txt"; sleep 0.5
capture; cp "$screen_file" "$work/before2.txt"
keys '?'
if wait_for "run every variant of the lab" 5; then pass "help lists the keys"; else fail "help did not open"; fi
snapshot help
keys Escape
if wait_gone "run every variant of the lab" 5; then pass "Esc closes help"; else fail "help did not close"; fi
sleep 0.3; capture
left=$(paste -d '\001' "$work/before1.txt" "$work/before2.txt" "$screen_file" |
       awk -F '\001' '$1 == $2 && $2 != $3 { print NR ": " $3 }')
if [ -z "$left" ]; then
    pass "closing help leaves the screen as it was"
else
    fail "closing help left characters behind on these lines:"; echo "$left"
fi

# ---- the learner's kernel: a copy in the workspace, edited, saved, run -------------------
kernel=$(ls "$work"/ws/*/starter.cu 2>/dev/null | head -1)
if [ -n "$kernel" ]; then
    pass "the exercise was copied into the workspace ($kernel)"
    # select that lab: its place in the list
    ex_id=$(basename "$(dirname "$kernel")")
    ex_at=$(awk -v id="$ex_id" 'NR > 1 && $2 == id { print NR - 1 }' "$work/list.txt")
    keys g
    k=1
    while [ $k -lt "${ex_at:-1}" ]; do keys j; k=$((k + 1)); done
    keys e
    i=0
    while [ $i -lt 50 ] && ! grep -q "edited by the end-to-end test" "$kernel"; do sleep 0.1; i=$((i + 1)); done
    if grep -q "edited by the end-to-end test" "$kernel"; then pass "e opens the editor on your kernel"; else fail "e did not edit $kernel"; fi
    if wait_for "your kernel" 300; then pass "saving ran your kernel"; else fail "saving did not run your kernel"; fi
    wait_gone "running" 300 || fail "the run of your kernel did not finish"
    alt=$(T display-message -p -t e2e '#{alternate_on}')
    [ "$alt" = 1 ] && pass "the UI is back after the editor" || fail "the UI did not come back after the editor"
    keys g
else
    echo "note: the first lab has no exercise; editing not tested"
fi

# ---- a run without a GPU ---------------------------------------------------------------
# on the reduction lab, whose rows include the CPU baselines
red_at=$(awk 'NR > 1 && $2 == "reduction" { print NR - 1 }' "$work/list.txt")
keys g
k=1
while [ $k -lt "${red_at:-1}" ]; do keys j; k=$((k + 1)); done
keys R
# the run is short on a machine without a GPU: look for its figures
cpu_row='cpu[^│|]*[0-9] (ns|µs|us|ms|s) '
i=0
while [ $i -lt 3000 ]; do
    capture
    if grep -E -i -q "$cpu_row" "$screen_file"; then
        break
    fi
    sleep 0.1
    i=$((i + 1))
done
if grep -E -i -q "$cpu_row" "$screen_file"; then pass "CPU figures appear in the table"; else fail "no CPU timing in the run table"; fi
if wait_gone "running" 300; then pass "the run finished"; else fail "the run did not finish"; fi
has "no CUDA device found" && pass "still says no CUDA device found" || fail "lost 'no CUDA device found'"
snapshot run-no-gpu

# ---- resizing ------------------------------------------------------------------------------
check_sane() {  # check_sane NAME
    capture
    if has "Labs" && has "Lesson" && has "? help" && ! has "too small"; then
        pass "$1: screen redrawn"
    else
        fail "$1: screen not sane after resize"
    fi
}
T resize-window -t e2e -x 80 -y 24; sleep 0.5
check_sane "80x24"
snapshot resize-80x24
T resize-window -t e2e -x 50 -y 14; sleep 0.5
if wait_for "terminal too small: need 60x16" 5; then pass "too small is said"; else fail "no 'terminal too small' at 50x14"; fi
snapshot too-small
T resize-window -t e2e -x 200 -y 50; sleep 0.5
check_sane "200x50"
has "speedup over the CPU" && pass "200x50: the chart shows" || fail "200x50: no speedup chart"
snapshot resize-200x50
T resize-window -t e2e -x 100 -y 30; sleep 0.5
check_sane "100x30"

# ---- quitting --------------------------------------------------------------------------
keys q
if wait_for "cudalab exited with 0" 10; then pass "q quits with status 0"; else fail "q did not exit with 0"; fi
alt=$(T display-message -p -t e2e '#{alternate_on}')
[ "$alt" = 0 ] && pass "the terminal left the alternate screen" || fail "still on the alternate screen"
has "Labs" && fail "the UI is still on the screen after quitting" || pass "the screen is restored"

# ---- Ctrl-C ------------------------------------------------------------------------------
start_tui 90 26
wait_for "Labs" 20 || fail "second start: no lab list"
keys C-c
if wait_for "cudalab exited with 130" 10; then pass "Ctrl-C ends the UI (130)"; else fail "Ctrl-C did not end the UI"; fi
alt=$(T display-message -p -t e2e '#{alternate_on}')
[ "$alt" = 0 ] && pass "Ctrl-C leaves the terminal clean" || fail "Ctrl-C left the alternate screen on"

# ---- terminals that cannot draw the lab: a message and exit 3 -------------------------
for t in "dumb:cannot move the cursor" "no-such-terminal-xyz:not a terminal type this machine knows"; do
    name=${t%%:*}
    said=${t#*:}
    tui_env="TERM=$name" start_tui 90 26
    if wait_for "cudalab exited with 3" 10; then pass "TERM=$name: exit 3"; else fail "TERM=$name: no exit 3"; fi
    has "$said" && pass "TERM=$name: says why" || fail "TERM=$name: no '$said'"
    has "TERM=xterm-256color" && pass "TERM=$name: says what to do" || fail "TERM=$name: no advice"
done
tui_env=

if [ $failures -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
