#!/usr/bin/env bash
# Peak resident memory per rank at two run lengths (docs/method.md#histograms): the
# statistics use fixed-size histograms, so memory must not grow with the
# number of samples. Runs RR Two-sided Lat and Multiple Allreduce on 4
# emulated nodes for SHORT and LONG seconds per test and prints, per run
# length, the samples taken and the largest peak RSS of any rank.
#
#   bash bench/peak_rss.sh            # SHORT=1 LONG=8
#   SHORT=2 LONG=20 NP=8 bash bench/peak_rss.sh
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
short="${SHORT:-1}"; long="${LONG:-8}"; np="${NP:-4}"
command -v /usr/bin/time >/dev/null 2>&1 || { apt-get install -y -q time >/dev/null; }
[ -x build/network_test ] || { cmake -S . -B build >/dev/null && cmake --build build -j2 >/dev/null; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=(mpirun -np "$np")
mpirun --version | grep -q "Open MPI" && launch=(mpirun --oversubscribe -np "$np")

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf "%-10s %-22s %12s %18s\n" "seconds" "test" "samples" "max peak RSS (KiB)"
declare -A rss
for len in "$short" "$long"; do
    "${launch[@]}" /usr/bin/time -f "RSS_KB %M" build/network_test --emulate-nodes 1 \
        --tests rr_two_sided_lat,multiple_allreduce --time-limit "$len" --quiet \
        --output-dir "$tmp" --force >/dev/null 2>"$tmp/err"
    peak=$(grep -Eo 'RSS_KB [0-9]+' "$tmp/err" | awk '{print $2}' | sort -n | tail -1)
    rss[$len]=$peak
    python3 - "$tmp/network_test.json" "$len" "$peak" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for row in doc["tables"][0]["rows"]:
    print(f"{sys.argv[2]:<10} {row['test']:<22} {row['samples']:>12} {sys.argv[3]:>18}")
PY
done
echo "peak RSS ratio long/short: $(python3 -c "print(f'{${rss[$long]}/${rss[$short]}:.3f}')") (run length ratio $(python3 -c "print($long/$short)"))"
