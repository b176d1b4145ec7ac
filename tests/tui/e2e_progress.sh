#!/bin/sh
# e2e_progress.sh - the lab remembers: a quiz answered and the lesson step
# reached are there after quitting and reopening; a run of the learner's
# kernel and the milestone it earned, recorded in the progress store (as a
# GPU machine would record them), show when the lab opens.
. "$(dirname "$0")/e2e_lib.sh"

inject=${CUDALAB_STORE_INJECT:-}
data="$work/data/cudalab"

# ---- a quiz and a step, across a restart -------------------------------------------
start_tui 120 34
wait_for "step 1/" 20 || fail "the lesson did not show"
select_lab_id reduction   # the lab list: from basics down to reduction
wait_for "Lesson: Parallel reduction" 5 && pass "reduction is selected" || fail "j did not select reduction"
keys n
keys n
wait_for "step 3/" 5 && pass "moved to step 3" || fail "n did not move to step 3"
keys BTab              # the milestones pane
keys j                 # the quiz milestone
keys Enter
if wait_for "Enter answers" 5; then pass "the quiz opens"; else fail "the quiz did not open"; fi
keys Enter             # the first choice: wrong for this quiz
wait_for "✗ 1." 5 && pass "a wrong answer is marked" || fail "the first answer was not marked"
keys j
keys Enter             # the second choice: right
wait_for "quiz answered" 5 && pass "the right answer reaches the milestone" || fail "the quiz milestone was not reached"
keys Escape
keys q
sleep 1
[ -f "$data/progress.db" ] && pass "the progress store was written" || fail "no $data/progress.db"

start_tui 120 34
wait_for "Labs" 20 || fail "the lab did not reopen"
wait_for "step 3/" 10 && pass "reopened at step 3" || fail "the step was not remembered"
has "quiz answered" && pass "the quiz answer was remembered" || fail "the quiz answer was lost"
has "1/2" && pass "the milestone count was remembered" || fail "the milestone count is not 1/2"
keys q
sleep 1

# ---- a recorded run and its milestone -------------------------------------------------
if [ -z "$inject" ] || [ ! -x "$inject" ]; then
    fail "CUDALAB_STORE_INJECT does not name the store_inject helper ('$inject')"
else
    "$inject" "$data" reduction "2^28" 1.234 223.4 cpu100x "223x >= 100x" \
        && pass "a recorded run was injected" || fail "store_inject failed"
    start_tui 120 34
    wait_for "Labs" 20 || fail "the lab did not reopen"
    wait_for "2/2" 10 && pass "both milestones of reduction are reached" || fail "the recorded milestone does not count"
    has "223x" && pass "the milestone shows the value that earned it" || fail "no 223x on the screen"
    has "results of" && pass "the run pane says when the results were recorded" || fail "no 'results of' note"
    has "1.23 ms" && pass "the learner's recorded time shows" || fail "the recorded time 1.23 ms is not shown"
    keys a
    if wait_for "Your attempts" 5; then pass "a opens the attempts"; else fail "a did not open the attempts"; fi
    has "At 2^28: 1 attempt" && pass "the attempt is listed at its size" || fail "the attempt is not listed"
    keys Escape
    keys q
fi

# ---- a milestone judged at another size than the one run -----------------------------
# The learner ran at 2^20 only: the milestone is judged at 2^28, says what
# 2^20 showed, and Enter on it switches the run to 2^28.
if [ -n "$inject" ] && [ -x "$inject" ]; then
    small="$work/small-data"
    "$inject" "$small/cudalab" reduction "2^20" 0.05 22.2 - - \
        && pass "a run at 2^20 was injected" || fail "store_inject failed (2^20)"
    tui_env="XDG_DATA_HOME='$small' CUDALAB_DATA='$small/cudalab'"
    start_tui 140 40
    tui_env=
    wait_for "Labs" 20 || fail "judged size: no lab list"
    select_lab_id reduction
    wait_for "Lesson: Parallel reduction" 5 || fail "judged size: reduction not selected"
    keys BTab          # the milestones pane, on the speed milestone
    keys Enter
    if wait_for "judged at 2^28" 5; then
        pass "the milestone says where it is judged"
    else
        fail "no 'judged at 2^28' for a run at 2^20"
    fi
    has "22.2x, needs >= 100x at 2^20" && pass "and what 2^20 showed" || fail "the 2^20 figure is not shown"
    wait_for "size set to 2^28" 5 && pass "Enter switches the run to the judged size" ||
        fail "Enter did not switch to 2^28"
    has "[2^28]" && pass "the run pane is at 2^28" || fail "the run pane's size is not 2^28"
    keys q
fi

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
