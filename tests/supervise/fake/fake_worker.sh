#!/bin/sh
# A stand-in for `cudalab worker` that speaks the protocol on fd 3 and
# misbehaves on request.
#
#   fake_worker.sh [MODE] [N=MODE]... [crashidle=FILE]
#
# MODE applies to every run, N=MODE to run N only; other runs behave.
# Modes: normal, hang, hangex/hangcpu (hang after progress on the learner's
# kernel / the CPU baseline), segv, exit7, exit0, flood, lines (a million printed
# lines), longline, garbage, cuda,
# reply (sends a request back), nohello (exits before saying hello), deaf
# (closes its input, says hello, then sleeps).
# crashidle=FILE: when FILE does not exist, create it and exit with status 9
# shortly after hello, before any request arrives.

say() { printf '%s\n' "$1" >&3; }

default=normal
mark=
for a in "$@"; do
    case $a in
    crashidle=*) mark=${a#crashidle=} ;;
    *=*) ;;
    *) default=$a ;;
    esac
done

mode_for() {
    m=$default
    for a in $plan; do
        case $a in
        "$1"=*) m=${a#*=} ;;
        esac
    done
    echo "$m"
}
plan="$*"

if [ "$default" = nohello ]; then
    echo "fake worker: cannot load the device library" >&2
    exit 5
fi
if [ "$default" = deaf ]; then
    exec 0<&-
    say '{"type":"hello","device":{"present":false,"reason":"no CUDA device found: deaf fake worker"}}'
    exec sleep 30
fi

say '{"type":"hello","device":{"present":false,"reason":"no CUDA device found: fake worker"}}'
say "{\"type\":\"log\",\"level\":0,\"msg\":\"pid $$\"}"

if [ -n "$mark" ] && [ ! -e "$mark" ]; then
    : > "$mark"
    sleep 0.1
    echo "fake worker: crashing while idle"
    exit 9
fi

while IFS= read -r line; do
    case $line in
    *'"type":"quit"'*) exit 0 ;;
    esac
    run=$(printf '%s\n' "$line" | sed -n 's/.*"run":\([0-9][0-9]*\).*/\1/p')
    [ -n "$run" ] || continue
    mode=$(mode_for "$run")
    case $mode in
    hangex|hangcpu)
        v=exercise; p=timing
        [ "$mode" = hangcpu ] && v=cpu_mt && p=cpu
        say "{\"type\":\"progress\",\"run\":$run,\"variant\":\"$v\",\"size\":\"2^28\",\"rep\":1,\"of\":5,\"phase\":\"$p\"}"
        sleep 30 &
        wait
        ;;
    hang)
        sleep 30 &
        say "{\"type\":\"log\",\"level\":0,\"msg\":\"sleeper $!\"}"
        wait
        ;;
    segv)
        kill -SEGV $$
        ;;
    exit7)
        echo "fake worker: giving up on run $run"
        exit 7
        ;;
    exit0)
        exit 0
        ;;
    flood)
        head -c 8388608 /dev/zero | tr '\0' 'x'
        head -c 1048576 /dev/zero | tr '\0' 'y' >&2
        echo
        echo "end of flood"
        ;;
    lines)
        seq 1 1000000 | sed 's/^/thread /'
        ;;
    longline)
        head -c 100000 /dev/zero | tr '\0' 'a' >&3
        sleep 30
        ;;
    garbage)
        say 'this is {not json'
        sleep 30
        ;;
    reply)
        say "{\"type\":\"run\",\"run\":$run}"
        sleep 30
        ;;
    cuda)
        echo "fake worker: CUDA error"
        say "{\"type\":\"fault\",\"run\":$run,\"variant\":\"v1\",\"cause\":\"cuda\",\"message\":\"an illegal memory access was encountered\"}"
        exit 3
        ;;
    esac
    echo "device printf from run $run"
    say "{\"type\":\"progress\",\"run\":$run,\"variant\":\"v1\",\"size\":\"1K\",\"rep\":1,\"of\":2,\"phase\":\"timing\"}"
    say "{\"type\":\"result\",\"run\":$run,\"variant\":\"v1\",\"label\":\"fake\",\"size\":\"1K\",\"kind\":\"kernel\",\"status\":\"correct\",\"message\":\"request of ${#line} bytes\",\"median_ms\":1.5,\"gbps\":null,\"seed\":\"18446744073709551615\"}"
    say "{\"type\":\"done\",\"run\":$run}"
done
exit 0
