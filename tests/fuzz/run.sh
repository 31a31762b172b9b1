#!/usr/bin/env bash
# Run every libFuzzer target of tests/fuzz for a while; exit non-zero if any
# finds a crash or a broken invariant.
#
#   tests/fuzz/run.sh [--seconds N] [--build DIR] [--jobs J]
#
#   --seconds N  fuzzing time per target (default 12)
#   --build DIR  build directory made by scripts/build.sh --fuzz (default build-fuzz)
#   --jobs J     targets run at the same time (default: number of cores)
#
# The corpus grows in DIR/corpus/<target> across runs; a crashing input is
# kept as DIR/crashes/<target>/crash-* and printed. One line per target:
#   fuzz_options: 812345 runs in 12 s, no crash (corpus 301 inputs)
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
seconds=12
build="$repo/build-fuzz"
jobs="$(nproc 2>/dev/null || echo 2)"
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done

targets=(fuzz_options fuzz_histogram fuzz_placement fuzz_json_writer fuzz_flows)
for t in "${targets[@]}"; do
    [ -x "$build/tests/fuzz/$t" ] || {
        echo "run.sh: $build/tests/fuzz/$t is not built: scripts/build.sh --fuzz" >&2
        exit 2
    }
done

# Seeds: a few valid command lines (arguments separated by NUL bytes; the
# first byte picks the program), so the fuzzer starts from accepted input.
seed_options() {
    local dir="$1"
    mkdir -p "$dir"
    printf '\001--time-limit\x000.5\x00--congestors\x00a2a:2,rma_bcast' >"$dir/seed-load"
    printf '\x00--tests=rr_get_lat,multiple_alltoall\x00--measurements\x003\x00-v' >"$dir/seed-net"
    printf '\001--canary-fraction=0.5\x00--seed\x00time\x00--emulate-nodes\x004' >"$dir/seed-frac"
    printf '\x00--output-dir\x00/tmp/x\x00--json\x00r.json\x00--force\x00--deadline\x0060' >"$dir/seed-out"
}

run_one() {
    local t="$1" corpus="$build/corpus/$1" crashes="$build/crashes/$1" log="$build/fuzz-$1.log"
    mkdir -p "$corpus" "$crashes"
    [ "$t" = fuzz_options ] && seed_options "$corpus"
    [ "$t" = fuzz_flows ] && printf '# flows\nn0 n1\n  n2\tn3\n\nn5 n0\n' >"$corpus/seed-flows"
    local dict=()
    [ "$t" = fuzz_options ] && dict=("-dict=$repo/tests/fuzz/options.dict")
    (cd "$crashes" && "$build/tests/fuzz/$t" "${dict[@]}" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
        "$corpus" >"$log" 2>&1)
    local rc=$? runs secs n
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    secs="$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)"
    n="$(find "$corpus" -type f | wc -l)"
    if [ $rc -eq 0 ]; then
        echo "$t: ${runs:-?} runs in ${secs:-?} s, no crash (corpus $n inputs)"
    else
        echo "$t: FAILED (exit $rc) after ${runs:-?} runs; log $log"
        grep -E "invariant failed|ERROR|SUMMARY|Test unit written" "$log" | head -10
        return 1
    fi
}

failed=0
running=0
pids=()
names=()
outs=()
for t in "${targets[@]}"; do
    out="$(mktemp)"
    run_one "$t" >"$out" 2>&1 &
    pids+=($!)
    names+=("$t")
    outs+=("$out")
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait "${pids[0]}" || failed=1
        cat "${outs[0]}"; rm -f "${outs[0]}"
        pids=("${pids[@]:1}"); names=("${names[@]:1}"); outs=("${outs[@]:1}")
        running=$((running - 1))
    fi
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed=1
    cat "${outs[$i]}"; rm -f "${outs[$i]}"
done
exit $failed
