#!/usr/bin/env bash
# Scale benchmark under SimGrid (docs/scale.md): both programs at growing
# simulated rank counts, PPN 1 and 4, short loops; per run the wall time,
# CPU time, peak memory (of the whole simulation and per simulated rank)
# and the simulated set-up time (JSON setup_s); per program and PPN the
# growth exponent b of time ~ N^b fitted over the sizes. Then the pure-C
# set-up benchmark (node numbering, rank mapping, placement) at 10k, 100k
# and 1M ranks, without MPI.
#
#   bash bench/scale.sh
#   SIZES="64 256 1024" PPNS=1 PROGRAMS=network_test bash bench/scale.sh
#
# Environment:
#   SIZES     simulated ranks (default 64 128 256 512 1024 2048 4096)
#   PPNS      ranks per simulated host (default "1 4")
#   PROGRAMS  default "network_test network_load_test"
#   PLATFORM  default platforms/cluster-4096.xml (4096 hosts, flat)
#   SETUP_SIZES  ranks for the pure-C benchmark (default 10000 100000 1000000)
#   SMPI_EXTRA   more smpirun settings for every run, after those of
#             scripts/smpirun.sh (which include small sends as rendezvous:
#             SMPI_EXTRA=--cfg=smpi/send-is-detached-thresh:65536 measures
#             SimGrid's default, detached small sends; docs/scale.md)
#   LOAD_SMPI_EXTRA  smpirun settings of the network_load_test runs only,
#             before SMPI_EXTRA (default: none)
#   TIMEOUT   seconds per run before it is reported as "timeout" (default 900)
# Measure on an otherwise idle machine: the simulation is one process on one core.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
sizes="${SIZES:-64 128 256 512 1024 2048 4096}"
ppns="${PPNS:-1 4}"
programs="${PROGRAMS:-network_test network_load_test}"
platform="${PLATFORM:-$repo/platforms/cluster-4096.xml}"
setup_sizes="${SETUP_SIZES:-10000 100000 1000000}"
timeout_s="${TIMEOUT:-900}"
load_smpi_extra="${LOAD_SMPI_EXTRA:-}"

[ -f "$platform" ] || { echo "scale.sh: platform $platform not found" >&2; exit 2; }
platform="$(realpath "$platform")"
for v in $sizes $ppns $setup_sizes $timeout_s; do
    [[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "scale.sh: '$v' is not a positive integer" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null 2>&1 || {
    echo "scale.sh: /usr/bin/time not found; install the 'time' package" >&2; exit 1; }
python3 -c 'import numpy' 2>/dev/null || {
    echo "scale.sh: python3 with numpy is needed for the fit (scripts/setup-python.sh)" >&2; exit 1; }
[ -x build-simgrid/network_test ] || bash scripts/build.sh --mpi simgrid >/dev/null
[ -x build-openmpi/setup_bench ] || bash scripts/build.sh --mpi openmpi >/dev/null
hosts_max="$(python3 -c 'import re,sys; m=re.search(r"radical=\"0-([0-9]+)\"", open(sys.argv[1]).read()); print(int(m.group(1))+1 if m else 0)' "$platform")"

loops=(--tests rr_two_sided_lat,multiple_allreduce --measurements 2 --rings 2 --iterations 2
       --warmup 1 --quiet --force)
load_loops=(--congestor-measurements 1 --congestor-iterations 2 --seed 5)

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
results="$tmp/results.tsv"
: >"$results"
echo "# SimGrid settings: scripts/smpirun.sh's, then SMPI_EXTRA: ${SMPI_EXTRA:-(none)}"
case " $programs " in *" network_load_test "*)
    echo "# network_load_test runs also with LOAD_SMPI_EXTRA: ${load_smpi_extra:-(none)}" ;;
esac
printf "%-18s %4s %6s %9s %9s %10s %12s %12s\n" program ppn ranks wall_s cpu_s peak_MB KB_per_rank setup_sim_s
for prog in $programs; do
    for ppn in $ppns; do
        for n in $sizes; do
            hosts=$((n / ppn))
            if [ $((hosts * ppn)) -ne "$n" ]; then
                echo "scale.sh: skipping $n ranks at PPN $ppn: not a multiple of $ppn" >&2
                continue
            fi
            if [ "$hosts_max" -gt 0 ] && [ "$hosts" -gt "$hosts_max" ]; then
                echo "scale.sh: skipping $n ranks at PPN $ppn: needs $hosts hosts, $(basename "$platform") has $hosts_max" >&2
                continue
            fi
            seq 0 $((hosts - 1)) | sed "s/^/node-/; s/\$/:$ppn/" >"$tmp/hosts"
            out="$tmp/out"; mkdir -p "$out"; rm -f "$out/$prog.json"
            extra=()
            smpi_extra="${SMPI_EXTRA:-}"
            if [ "$prog" = network_load_test ]; then
                extra=("${load_loops[@]}")
                smpi_extra="$load_smpi_extra $smpi_extra"
            fi
            status=ok
            # From $tmp: smpirun writes its unrolled hostfile to the current
            # directory, and a run killed by the timeout leaves it there.
            (cd "$tmp" && SMPI_EXTRA="$smpi_extra" /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" timeout "$timeout_s" \
                bash "$repo/scripts/smpirun.sh" -platform "$platform" -hostfile "$tmp/hosts" \
                -np "$n" "$repo/build-simgrid/$prog" "${loops[@]}" "${extra[@]}" \
                --output-dir "$out") >"$tmp/log" 2>&1 || status=failed
            grep -q "timed out\|Command exited with non-zero status 124" "$tmp/time" && status=timeout
            read -r wall user sys rss < <(tail -1 "$tmp/time")
            setup="$(python3 -c 'import json,sys
try: print("%.6f" % json.load(open(sys.argv[1]))["setup_s"])
except Exception: print("nan")' "$out/$prog.json")"
            cpu="$(python3 -c "print($user + $sys)")"
            printf "%-18s %4d %6d %9.2f %9.2f %10.1f %12.1f %12s%s\n" "$prog" "$ppn" "$n" "$wall" \
                "$cpu" "$(python3 -c "print($rss/1024)")" "$(python3 -c "print($rss/$n)")" "$setup" \
                "$([ "$status" = ok ] || echo "  ($status)")"
            [ "$status" = ok ] || tail -5 "$tmp/log" | sed 's/^/    /'
            [ "$status" = ok ] && printf "%s\t%d\t%d\t%s\t%s\t%s\t%s\n" "$prog" "$ppn" "$n" "$wall" \
                "$cpu" "$rss" "$setup" >>"$results"
        done
    done
done

echo
echo "Growth exponent b of y ~ N^b (least squares on log-log, over the sizes that ran):"
python3 - "$results" <<'PY'
import sys
from collections import defaultdict
import numpy as np
rows = defaultdict(list)
for line in open(sys.argv[1]):
    prog, ppn, n, wall, cpu, rss, setup = line.split("\t")
    rows[(prog, int(ppn))].append((int(n), float(wall), float(cpu), float(rss), float(setup)))
print(f"{'program':18s} {'ppn':>4s} {'ranks':>12s} {'wall':>6s} {'cpu':>6s} {'memory':>7s} {'setup':>6s}")
for (prog, ppn), v in sorted(rows.items()):
    if len(v) < 2:
        continue
    v.sort()
    n = np.log([r[0] for r in v])
    def fit(i):
        y = np.array([r[i] for r in v])
        if np.any(~np.isfinite(y)) or np.any(y <= 0):
            return float("nan")
        return np.polyfit(n, np.log(y), 1)[0]
    print(f"{prog:18s} {ppn:4d} {str(v[0][0]) + '..' + str(v[-1][0]):>12s} "
          f"{fit(1):6.2f} {fit(2):6.2f} {fit(3):7.2f} {fit(4):6.2f}")
PY

echo
echo "Set-up without MPI (bench/setup_bench.c):"
# shellcheck disable=SC2086
build-openmpi/setup_bench $setup_sizes
