#!/bin/sh
# HPCC under `gpcnet study` (docs/studies.md). HPCC reads hpccinf.txt from
# and appends hpccoutf.txt to its working directory, so every rank works in
# a fresh temporary directory; rank 0 then prints the summary values a
# --fom-regex can pick, e.g. 'StarSTREAM_Triad=([0-9.]+)' (per-rank STREAM:
# no communication) or 'MPIRandomAccess_GUPs=([0-9.e-]+)' (all-to-all).
# Input: hpccinf.txt beside this script, or $HPCC_INPUT.
here=$(cd "$(dirname "$0")" && pwd)
input=${HPCC_INPUT:-$here/hpccinf.txt}
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpcnet-hpcc.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cp "$input" "$dir/hpccinf.txt" || exit 1
cd "$dir" || exit 1
hpcc
rc=$?
if [ "$rank" = 0 ] && [ -f hpccoutf.txt ]; then
    grep -E '^(Success|HPL_Tflops|PTRANS_GBs|MPIRandomAccess_GUPs|StarDGEMM_Gflops|StarSTREAM_Triad|StarFFT_Gflops)=' hpccoutf.txt
fi
exit $rc
