#!/usr/bin/env bash
# The README's Slurm job-array script ("Under Slurm, ..." in the Grading
# section), run by a real Slurm.
#
# Starts munged, slurmctld and slurmd (Debian's munge and slurm-wlm) on this
# machine with a private configuration and state in a temporary folder: their
# own munge key and socket, free ports, one node named after `hostname -s`
# with one placeholder GPU (a GRES `gpu` on /dev/null, so that the script's
# --gpus=1 is accepted; the jobs see no real GPU whatever the machine has).
# Then it takes the script out of README.md, submits it as an array of 8
# tasks for 8 learners, waits for them and checks what each task left: the
# exit code Slurm recorded (3: cannot grade without a CUDA device), its log,
# its reports, and that `cudalab class reports/` names every learner.
#
# Usage: test_slurm.sh CUDALAB_EXE README.md
# Exit 0 passed, 1 failed, 77 skipped (the daemons are not installed). It
# runs as root (as in CI) or as any user: the daemons and the jobs run as
# whoever runs it. The daemons and every process of the jobs are stopped,
# and the temporary folder removed, however the test ends.
set -euo pipefail

exe=${1:?usage: test_slurm.sh CUDALAB_EXE README.md}
readme=${2:?usage: test_slurm.sh CUDALAB_EXE README.md}
ntasks=8
learners=(ada alan barbara edsger frances grace john katherine)

skip() { echo "SKIP: $*"; exit 77; }

# ---- can it run here? ---------------------------------------------------------
PATH=$PATH:/usr/sbin:/sbin     # the daemons, for users whose PATH lacks them
missing=()
for c in munged slurmctld slurmd sbatch scontrol squeue sinfo scancel; do
    command -v "$c" >/dev/null 2>&1 || missing+=("$c")
done
[ ${#missing[@]} -eq 0 ] ||
    skip "needs ${missing[*]} from Debian's slurm-wlm and munge" \
         "(apt-get install slurm-wlm munge; ./cudalab.sh test installs them when run as root)"
[ -x "$exe" ] || { echo "FAIL: no cudalab binary at $exe"; exit 1; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
[ -f "$readme" ] || { echo "FAIL: no README at $readme"; exit 1; }

# Nothing of a surrounding Slurm job or of the caller's Slurm settings leaks in.
while read -r v; do unset "$v"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)

# ---- the script, from the README ------------------------------------------------
# The first ```sh block after the paragraph that starts "Under Slurm", before
# any other heading or block.
script=$(awk '
    /^Under Slurm/ { state = 1; next }
    state == 1 && /^```sh[[:space:]]*$/ { state = 2; next }
    state == 1 && (/^#/ || /^```/) { exit 1 }
    state == 2 && /^```[[:space:]]*$/ { state = 3; exit }
    state == 2 { print }
    END { if (state != 3) exit 1 }' "$readme") ||
    { echo "FAIL: README.md has no \`\`\`sh block after \"Under Slurm\" (the Grading section's job-array script)"; exit 1; }
for want in '^#!/bin/bash' '^#SBATCH .*--array=' '^#SBATCH .*--gpus=1' '^#SBATCH .*--output=' \
            'SLURM_ARRAY_TASK_ID' 'learners\.txt' 'cudalab ' ' grade ' '--assignment' '--key' '--out "reports/'; do
    grep -Eq -- "$want" <<<"$script" ||
        { echo "FAIL: the README's job-array script lacks '$want':"; echo "$script"; exit 1; }
done

# ---- the temporary folder and the cleanup -------------------------------------------
tmp=$(mktemp -d /tmp/cudalab-slurm-XXXXXX)
chmod 755 "$tmp"
pids=()        # munged, slurmctld, slurmd: stopped in reverse order
jobid=

# Processes whose working folder or open files lie in $tmp: the daemons, and
# whatever the jobs left (slurmstepd, the script, cudalab and its worker).
ours() {
    local d p f
    for d in /proc/[0-9]*; do
        p=${d#/proc/}
        [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] && continue
        f=$(readlink "$d/cwd" 2>/dev/null || true)
        case "$f" in "$tmp"|"$tmp"/*) echo "$p"; continue ;; esac
        for f in "$d"/fd/*; do
            f=$(readlink "$f" 2>/dev/null || true)
            case "$f" in "$tmp"/*) echo "$p"; break ;; esac
        done
    done
}

# wait_gone SECONDS PID...: true once none of the PIDs is alive.
wait_gone() {
    local n=$(( $1 * 10 )) p alive
    shift
    while [ $n -gt 0 ]; do
        alive=0
        for p in "$@"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && return 0
        sleep 0.1; n=$(( n - 1 ))
    done
    return 1
}

# sweep: stops every process of ours() (TERM, then KILL: slurmstepd ignores
# TERM); prints those that would not go.
sweep() {
    local i left
    left=$(ours)
    [ -z "$left" ] && return 0
    # shellcheck disable=SC2086
    kill -TERM $left 2>/dev/null
    # shellcheck disable=SC2086
    wait_gone 3 $left && return 0
    for i in 1 2 3 4 5 6 7 8 9 10; do
        left=$(ours)
        [ -z "$left" ] && return 0
        # shellcheck disable=SC2086
        kill -KILL $left 2>/dev/null
        sleep 0.2
    done
    left=$(ours)
    # shellcheck disable=SC2086
    [ -z "$left" ] || ps -o pid,args -p "$(echo $left | tr ' ' ,)"
}

cleanup() {
    local rc=$? i left
    set +e
    trap - EXIT INT TERM
    cd /
    [ -n "$jobid" ] && timeout 5 scancel "$jobid" >/dev/null 2>&1
    for (( i = ${#pids[@]} - 1; i >= 0; i-- )); do
        kill -TERM "${pids[i]}" 2>/dev/null
        wait_gone 5 "${pids[i]}" || kill -KILL "${pids[i]}" 2>/dev/null
    done
    left=$(sweep)
    if [ -n "$left" ]; then
        echo "FAIL: processes left behind in $tmp:"
        echo "$left"
        [ $rc = 0 ] && rc=1
    fi
    rm -rf "$tmp"
    kill "$guard" 2>/dev/null
    exit $rc
}
# When this shell is killed outright (SIGKILL, as by a CTest time-out), no
# trap runs: the daemons go with it (setpriv --pdeathsig below), and this
# guard stops what the jobs left and removes the folder.
(
    trap '' INT HUP
    cd /
    while kill -0 $$ 2>/dev/null; do sleep 1; done
    if [ -d "$tmp" ]; then sweep; rm -rf "$tmp"; fi
) </dev/null >/dev/null 2>&1 &
guard=$!
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

logs() {
    local f
    if [ -n "${SLURM_CONF:-}" ]; then
        echo "---- squeue"; timeout 5 squeue 2>&1
        echo "---- sinfo"; timeout 5 sinfo -N -l 2>&1
    fi
    for f in "$tmp"/log/*.log "$tmp"/log/*.out "$tmp"/submit/cudalab-grade-*.out; do
        [ -s "$f" ] || continue
        echo "---- ${f#"$tmp"/} (last 30 lines)"; tail -n 30 "$f"
    done
}
fail() { echo "FAIL: $*"; logs; exit 1; }

# until SECONDS WHAT COMMAND...: run COMMAND every 0.2 s until it succeeds;
# fail after SECONDS, naming WHAT.
until_ok() {
    local secs=$1 what=$2 n=$(( $1 * 5 ))
    shift 2
    while ! "$@" >/dev/null 2>&1; do
        n=$(( n - 1 ))
        [ $n -gt 0 ] || fail "$what (waited $secs s)"
        sleep 0.2
    done
}

# Daemons die with this shell even when it is killed outright (a CTest time-out).
if command -v setpriv >/dev/null 2>&1; then tether=(setpriv --pdeathsig KILL); else tether=(); fi

# ---- munge -----------------------------------------------------------------------
mkdir -p "$tmp/munge" "$tmp/run" "$tmp/log" "$tmp/etc" "$tmp/ctld" "$tmp/spool"
chmod 700 "$tmp/munge"
chmod 755 "$tmp/run"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
socket=$tmp/run/munge.socket
"${tether[@]}" munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$socket" \
    --pid-file="$tmp/run/munged.pid" --seed-file="$tmp/munge/munged.seed" \
    --log-file="$tmp/log/munged.log" >"$tmp/log/munged.out" 2>&1 &
pids+=($!)
until_ok 10 "munged did not open its socket $socket" test -S "$socket"

# ---- Slurm's configuration -------------------------------------------------------------
user=$(id -un)                 # the daemons run as whoever runs the test
host=$(hostname -s 2>/dev/null || uname -n)
host=${host%%.*}
# A free TCP port away from the ephemeral range (no listener nor connection on it).
port_in_use() {
    local hex
    hex=$(printf '%04X' "$1")
    awk -v h=":$hex" 'NR > 1 && substr($2, length($2) - 4) == h { f = 1 } END { exit !f }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
free_port() {
    local p
    while :; do
        p=$(( 10000 + RANDOM % 22000 ))
        [ "$p" = "${1:-}" ] && continue
        port_in_use "$p" || { echo "$p"; return; }
    done
}
ctld_port=$(free_port)
d_port=$(free_port "$ctld_port")

export SLURM_CONF=$tmp/etc/slurm.conf
cat >"$SLURM_CONF" <<EOF
# cudalab's test_slurm: one node, private state, private munge, free ports.
ClusterName=cudalabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
PlugStackConfig=$tmp/etc/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0
GresTypes=gpu
ReturnToService=2
MinJobAge=600
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
# Slurm 22.05 drops a GPU without a File; /dev/null stands in for one, and
# no_gpu_env keeps Slurm from setting CUDA_VISIBLE_DEVICES, so that the
# jobs get the -1 given at submission and see no GPU on any machine.
cat >"$tmp/etc/gres.conf" <<EOF
AutoDetect=off
NodeName=$host Name=gpu Count=1 File=/dev/null Flags=no_gpu_env
EOF
: >"$tmp/etc/plugstack.conf"

# ---- slurmctld, slurmd ----------------------------------------------------------------
"${tether[@]}" slurmctld -D -i >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
ctld_up() { scontrol ping 2>/dev/null | grep -q "is UP"; }
until_ok 20 "slurmctld did not answer on port $ctld_port" ctld_up
"${tether[@]}" slurmd -D -N "$host" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
node_idle() { [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; }
until_ok 20 "node $host did not become idle" node_idle

# ---- the class: learners, their workspaces, the instructor's key --------------------------
homes=$tmp/home
submit=$tmp/submit
mkdir -p "$homes" "$submit" "$tmp/instructor"
src=$(cd "$(dirname "$readme")" && pwd)
for (( i = 0; i < ntasks; i++ )); do
    l=${learners[i]}
    # half the class has opened the reduction lab (its starters), half nothing
    mkdir -p "$homes/$l/cudalab-workspace" "$homes/$l/.local/share/cudalab"
    if [ $(( i % 2 )) = 0 ] && [ -f "$src/labs/reduction/starter.cu" ]; then
        mkdir -p "$homes/$l/cudalab-workspace/reduction"
        cp "$src/labs/reduction/starter.cu" "$src/labs/reduction/starter.lua" \
           "$homes/$l/cudalab-workspace/reduction/"
    fi
    echo "$l"
done >"$submit/learners.txt"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/instructor/grade.key"
chmod 600 "$tmp/instructor/grade.key"
printf '%s\n' "$script" >"$submit/grade.sh"

# `cudalab` on PATH is the one just built.
bin=$(dirname "$exe")
# TRANSITIONAL: until `cudalab grade --assignment` lands (with the results.json
# it then writes when it cannot grade), the jobs run this binary through a shim
# that drops --assignment, and the results.json and `cudalab class` checks
# below are left out. Remove the shim once every build knows the option.
if "$exe" __complete grade - 2>/dev/null | grep -qx -- --assignment; then
    knows_assignment=1
else
    knows_assignment=0
    bin=$tmp/bin
    mkdir -p "$bin"
    cat >"$bin/cudalab" <<EOF
#!/usr/bin/env bash
# test_slurm's shim: this cudalab has no 'grade --assignment' yet.
args=()
while [ \$# -gt 0 ]; do
    case \$1 in
        --assignment) shift; [ \$# -gt 0 ] && shift ;;
        --assignment=*) shift ;;
        *) args+=("\$1"); shift ;;
    esac
done
exec "$exe" "\${args[@]}"
EOF
    chmod 755 "$bin/cudalab"
    echo "note: $exe has no 'grade --assignment' yet: the jobs drop the option," \
         "and results.json and 'cudalab class' are not checked"
fi

# ---- submit, wait ---------------------------------------------------------------------------
cd "$submit"
t0=$SECONDS
jobid=$(HOME=$tmp/instructor LEARNER_HOMES=$homes PATH="$bin:$PATH" CUDA_VISIBLE_DEVICES=-1 \
        sbatch --parsable --array=0-$(( ntasks - 1 )) grade.sh) ||
    fail "sbatch refused the README's script"
jobid=${jobid%%;*}
echo "submitted the README's script as job array $jobid ($ntasks tasks)"
array_done() { local q; q=$(squeue -h -j "$jobid" -o %i 2>/dev/null) && [ -z "$q" ]; }
until_ok 60 "the array's $ntasks tasks did not all finish" array_done
echo "the $ntasks tasks finished in $(( SECONDS - t0 )) s"

# ---- what each task left ---------------------------------------------------------------------
records=$(scontrol -o show job "$jobid") || fail "scontrol has no record of job $jobid"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
for (( i = 0; i < ntasks; i++ )); do
    l=$(sed -n "$(( i + 1 ))p" learners.txt)
    rec=$(grep -E "(^| )ArrayJobId=$jobid ArrayTaskId=$i " <<<"$records") ||
        fail "Slurm has no record of task $i"
    state=$(field JobState "$rec")
    code=$(field ExitCode "$rec")
    out=$(field StdOut "$rec")
    [ -f "$out" ] || fail "task $i ($l): no log at $out (the script's #SBATCH --output)"
    # 3: cudalab grade could not grade (no CUDA device); Slurm records it.
    if [ "$code" != 3:0 ] || [ "$state" != FAILED ]; then
        fail "task $i ($l): Slurm recorded $state with exit code $code, expected FAILED 3:0 (cannot grade); its log:
$(cat "$out")"
    fi
    grep -Eqi 'cannot grade|no CUDA device' "$out" ||
        fail "task $i ($l): its log does not say why it could not grade:
$(cat "$out")"
    # Gradescope's results: required once the binary knows --assignment
    # (TRANSITIONAL above), checked wherever they are written.
    r=reports/$l/results.json
    if [ $knows_assignment = 1 ]; then
        [ -d "reports/$l" ] || fail "task $i ($l): no reports/$l folder"
        [ -f "$r" ] || fail "task $i ($l): no $r (Gradescope's results, score 0, when it cannot grade)"
    fi
    if [ -f "$r" ]; then
        scores=$(grep -Eo '"score"[[:space:]]*:[[:space:]]*[-+0-9.eE]+' "$r" | sed 's/.*://; s/[[:space:]]//g')
        [ -n "$scores" ] || fail "task $i ($l): $r has no score: $(cat "$r")"
        while read -r s; do
            [[ $s =~ ^[-+]?0*(\.0*)?([eE][-+]?[0-9]+)?$ ]] ||
                fail "task $i ($l): $r scores $s, expected 0: $(cat "$r")"
        done <<<"$scores"
        grep -Eqi 'cannot grade|no CUDA device' "$r" ||
            fail "task $i ($l): $r does not say why it could not grade: $(cat "$r")"
    fi
done
echo "every task ended with exit code 3 (cannot grade: no CUDA device) and said so in its log"

# ---- the class --------------------------------------------------------------------------
if [ $knows_assignment = 1 ]; then
    class=$("$exe" class reports/ --key "$tmp/instructor/grade.key" --format csv 2>&1) ||
        fail "cudalab class reports/ failed: $class"
    # A learner is a row of the table (from report.json) or, where only
    # results.json could be written, named by a file it lists as left out.
    rows=0 left_out=0
    for l in "${learners[@]:0:$ntasks}"; do
        if grep -Eq "^\"?$l\"?," <<<"$class"; then
            rows=$(( rows + 1 ))
        elif grep -Fq "left out reports/$l/" <<<"$class"; then
            left_out=$(( left_out + 1 ))
        else
            fail "cudalab class reports/ does not list $l:
$class"
        fi
    done
    echo "cudalab class reports/ lists all $ntasks learners ($rows in the table, $left_out named among the files left out: results.json without report.json)"
fi
echo "the README's job-array script ran under Slurm for $ntasks learners"
