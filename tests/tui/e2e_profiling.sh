#!/bin/sh
# End-to-end test of the profiling views and the exercise tools: the real
# binary in tmux, without a GPU.
#
#   - the profiling lab runs; its experiment rows say no CUDA device found;
#   - t shows a recorded sample timeline (CUDALAB_TIMELINE_FILE stands in for
#     the one a run on a GPU records): zoom, pan, lanes, an item's details;
#   - T exports it as a Chrome trace, which must validate
#     (CUDALAB_TRACE_CHECK: the trace_check program; else python3's json);
#   - f shows the roofline view, b GB/s against size, both empty without a
#     GPU; N explains why Nsight Compute cannot run;
#   - C runs racecheck in the background through a stand-in
#     compute-sanitizer that replays a recorded log;
#   - a kernel that does not compile shows the compiler's message with the
#     offending line and a caret in the row's details;
#   - q quits cleanly.
set -u
. "$(cd "$(dirname "$0")" && pwd)/e2e_lib.sh"

sample="$home/tests/prof/data/sample_trace.json"
fake="$home/tests/features/exercises/sanitizer/fake-compute-sanitizer"
for f in "$sample" "$fake" "$home/tests/features/exercises/sanitizer/racecheck_all.log"; do
    if [ ! -f "$f" ]; then
        echo "FAIL: missing test data $f"
        exit 1
    fi
done

# lab positions in the list, from the command line
if ! CUDALAB_HOME="$home" "$exe" list > "$work/list.txt" 2> "$work/list.err"; then
    echo "FAIL: '$exe list' failed:"
    cat "$work/list.err"
    exit 1
fi
at_of() { awk -v id="$1" 'NR > 1 && $2 == id { print NR - 1 }' "$work/list.txt"; }
prof_at=$(at_of profiling)
red_at=$(at_of reduction)
if [ -z "$prof_at" ] || [ -z "$red_at" ]; then
    echo "FAIL: the profiling and reduction labs are not both listed"
    cat "$work/list.txt"
    exit 1
fi

# compute-sanitizer on PATH: the stand-in, replaying a racecheck log
mkdir -p "$work/bin"
ln -s "$fake" "$work/bin/compute-sanitizer"
# the learner's editor: adds a line that does not compile
cat > "$work/editor" <<'ED'
#!/bin/sh
echo "int broken_line = undefined_name;" >> "$1"
ED
chmod +x "$work/editor"

# the UI sees the recorded timeline, the stand-in sanitizer and its log
tui_env="CUDALAB_TIMELINE_FILE='$sample' PATH='$work/bin:$PATH' \
         FAKE_SANITIZER_LOG='$home/tests/features/exercises/sanitizer/racecheck_all.log' \
         FAKE_SANITIZER_ARGS='$work/sanitizer-args'"

# select_lab N: the N-th lab of the list (the lab list has the focus)
select_lab() {
    keys g
    k=1
    while [ $k -lt "$1" ]; do keys j; k=$((k + 1)); done
}

# window note of the timeline: "0 ns - 2.55 ms (1.0x)"
window() { grep -o '[0-9.]* [num]*s - [0-9.]* [num]*s ([0-9.]*x)' "$screen_file" | head -1; }

start_tui 100 30
wait_for "Labs" 20 || fail "no lab list"
wait_for "no CUDA device found" 30 || fail "no 'no CUDA device found'"

# ---- the profiling lab, run without a GPU -------------------------------------------
select_lab "$prof_at"
if wait_for "Lesson: Profiling" 5; then pass "the profiling lab is selected"; else fail "cannot select the profiling lab"; fi
has "t timeline" && pass "the status bar offers the timeline" || fail "no 't timeline' in the status bar"
keys R
wait_for "running" 10
if wait_gone "running" 300; then pass "the profiling run finished"; else fail "the profiling run did not finish"; fi
capture
if grep -E -q 'transfers +no device' "$screen_file"; then
    pass "the experiment rows say there is no device"
else
    fail "no experiment row saying 'no device'"
fi
# the pipeline's rows come last: move the cursor there, then back to the labs
keys Tab
keys Tab
keys G
capture
grep -E -q 'your pipel[^ ]* +no device' "$screen_file" && pass "your pipeline's row says there is no device" ||
    fail "no row for your pipeline"
grep -E -q 'your groupby +no device' "$screen_file" && pass "your steps have rows of their own" ||
    fail "no rows for your steps"
# the CPU's rows follow the experiments
keys g
keys j j j j j j j j j j j j
capture
grep -E -q 'CPU (load|fill|filter) +[0-9.]+ [mu]s' "$screen_file" && pass "the pipeline's CPU baseline ran" ||
    fail "no CPU row for the pipeline"
keys G
keys Tab
keys Tab
snapshot profiling-run

# ---- the timeline -------------------------------------------------------------------------
keys t
if wait_for "Timeline: NVIDIA H100 80GB HBM3" 5; then pass "t opens the recorded timeline"; else fail "t did not open the timeline"; fi
ok=1
for lane in "NVTX" "runtime API" "copies H2D" "stream 14" "stream 15" "copies D2H" "GPU idle"; do
    has "$lane" || { fail "lane '$lane' missing"; ok=0; }
done
[ $ok = 1 ] && pass "every lane is drawn"
has "2 kernels, 4 copies (1 from pageable memory)" && pass "the summary counts kernels and copies" ||
    fail "no summary line"
has "pageable copy" && pass "the legend tells pinned from pageable copies" || fail "no legend"
w0=$(window)
[ "$w0" = "0 ns - 2.55 ms (1.0x)" ] && pass "the whole span shows first" || fail "first window is '$w0'"
snapshot timeline
keys +
capture
w1=$(window)
case "$w1" in *"(2.0x)") pass "+ zooms in ($w1)" ;; *) fail "+ did not zoom: '$w1'" ;; esac
keys l
keys l
capture
w2=$(window)
case "$w2" in
    "0 ns -"*) fail "l did not pan: '$w2'" ;;
    *"(2.0x)") pass "l pans later ($w2)" ;;
    *) fail "panning changed the zoom: '$w2'" ;;
esac
keys h
keys h
keys h
capture
w3=$(window)
if [ "$w3" != "$w2" ] && [ "$w3" != "$w1" ]; then pass "h pans earlier ($w3)"; else fail "h did not pan: '$w3'"; fi
keys PPage
capture
case "$(window)" in "0 ns -"*"(2.0x)") pass "PgUp pans a whole window back to the start" ;; *) fail "PgUp did not pan back: '$(window)'" ;; esac
keys -
capture
[ "$(window)" = "0 ns - 2.55 ms (1.0x)" ] && pass "- zooms out" || fail "- did not zoom out: '$(window)'"
keys Tab
if wait_for "memcpy HtoD on copies H2D: start 6.00" 5; then pass "Tab selects the first upload"; else fail "Tab selected nothing"; fi
has "32 MiB at 52.4 GB/s, pinned" && pass "its bytes, GB/s and host memory show" || fail "no bytes or GB/s in the details"
keys j
if wait_for "prof_fma on stream 14: start" 5; then pass "j moves to the stream's kernel"; else fail "j did not select the kernel"; fi
keys j
keys j
keys BTab
if wait_for "pageable" 5 && has "memcpy DtoH on copies D2H"; then pass "the pageable download is found"; else fail "no pageable download selected"; fi
keys Enter
capture
case "$(window)" in *"(1.0x)") fail "Enter did not zoom to the item" ;; *) pass "Enter zooms to the item ($(window))" ;; esac

keys T
if wait_for "trace written to" 5; then pass "T says where the trace went"; else fail "T wrote no trace"; fi
trace=$(ls "$work"/ws/profiling/timeline-*.json 2>/dev/null | head -1)
if [ -n "$trace" ]; then
    pass "the trace is in the workspace ($trace)"
    if [ -n "${CUDALAB_TRACE_CHECK:-}" ] && [ -x "$CUDALAB_TRACE_CHECK" ]; then
        if out=$("$CUDALAB_TRACE_CHECK" "$trace" 2>&1); then
            case "$out" in
                "6 lanes, 11 events") pass "the exported trace validates ($out)" ;;
                *) fail "the exported trace reads back as '$out'" ;;
            esac
        else
            fail "the exported trace does not validate: $out"
        fi
    elif command -v python3 >/dev/null 2>&1; then
        if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len([e for e in d["traceEvents"] if e.get("ph") == "X"]) == 11' "$trace"; then
            pass "the exported trace is JSON with 11 events"
        else
            fail "the exported trace is not what was shown"
        fi
    else
        grep -q '"traceEvents"' "$trace" && pass "the exported trace has traceEvents" || fail "the exported trace is not a trace"
    fi
else
    fail "no timeline-*.json in $work/ws/profiling"
fi

# ---- the roofline ------------------------------------------------------------------------------
keys f
if wait_for "Roofline: profiling (log-log)" 5; then pass "f opens the roofline"; else fail "f did not open the roofline"; fi
has "no CUDA device found: the roofline needs this GPU's peaks" && pass "the roofline says why it is empty" ||
    fail "the roofline does not explain itself"
snapshot roofline
# b goes on to GB/s against size, which has nothing measured here either
keys b
if wait_for "GB/s by size: profiling (log-log)" 5; then pass "b opens GB/s by size"; else fail "b did not open GB/s by size"; fi
has "no CUDA device found" && has "nothing can be measured on this machine" &&
    pass "GB/s by size says why it is empty" || fail "GB/s by size does not explain itself"
has "Esc close  Up/Down series  f roofline" && pass "the status bar offers the view's keys" ||
    fail "no keys of GB/s by size in the status bar"
keys Escape
if wait_gone "Roofline:" 5 && wait_gone "GB/s by size:" 5 && wait_for "Lesson: Profiling" 5; then pass "Esc closes the view"; else fail "Esc did not close the view"; fi

# ---- Nsight Compute: the selected row's kernel ---------------------------------------------------
keys Tab
keys Tab
keys g
keys N
if wait_for "Nsight Compute" 10; then
    if has "was not found" || has "no CUDA device found"; then
        pass "N explains why Nsight Compute cannot profile here"
    else
        fail "N opened something unexpected"
    fi
else
    fail "N showed nothing"
fi
keys Escape
keys Tab
keys Tab

# ---- racecheck in the background ------------------------------------------------------------------
select_lab "$red_at"
wait_for "Lesson: Parallel reduction" 5 || fail "cannot select the reduction lab"
keys C
if wait_for "racecheck on your kernel" 10; then pass "C starts racecheck without freezing the screen"; else fail "C did not start racecheck"; fi
if wait_for "racecheck found 2 problems" 120; then pass "the findings show"; else fail "no racecheck findings"; fi
has "RAW race hazard on shared memory in reduce_sum" && pass "a finding names kind, memory and kernel" ||
    fail "the race is not described"
has "at starter.cu:16, thread (124,0,0) of block (0,0,0)" && pass "a finding names file:line, thread and block" ||
    fail "no file:line or thread in the finding"
grep -q -- "--tool racecheck" "$work/sanitizer-args" 2>/dev/null && pass "the tool was asked for racecheck" ||
    fail "compute-sanitizer was not run with --tool racecheck"
snapshot racecheck
keys Escape

# ---- a kernel that does not compile ---------------------------------------------------------------
keys e
if wait_for "error" 120 && wait_gone "running" 120; then pass "saving a broken kernel runs it"; else fail "the broken kernel's run did not end"; fi
keys Tab
keys Tab
keys G
keys Enter
if wait_for "What the compiler said" 5; then pass "the row's details hold the compiler's message"; else fail "no compiler message in the details"; fi
has 'identifier "undefined_name" is undefined' && pass "the error names the identifier" || fail "the error text is missing"
has "int broken_line = undefined_name;" && pass "the offending line is shown" || fail "the source line is missing"
grep -E -q '│ +\^ *│' "$screen_file" && pass "a caret points into it" || fail "no caret under the line"
has "Your kernel does not compile" && pass "the diagnosis names a compile error" || fail "no compile diagnosis"
keys Escape

# ---- quitting ---------------------------------------------------------------------------------------
keys q
if wait_for "cudalab exited with 0" 10; then pass "q quits with status 0"; else fail "q did not exit with 0"; fi
alt=$(T display-message -p -t e2e '#{alternate_on}')
[ "$alt" = 0 ] && pass "the terminal left the alternate screen" || fail "still on the alternate screen"

if [ $failures -gt 0 ]; then
    echo "$failures check(s) failed"
    exit 1
fi
echo "all checks passed"
