#!/usr/bin/env bash
# smpirun with the SimGrid settings GPCNeT needs to scale (docs/portability.md,
# docs/scale.md). Arguments are passed to smpirun unchanged; this adds:
#
#   --cfg=smpi/simulate-computation:no   deterministic runs (no timed host CPU)
#   --log=root.thres:warning             no per-rank SimGrid chatter
#   --cfg=smpi/send-is-detached-thresh:0 small sends as rendezvous, not
#                                        detached (below)
#   --cfg=smpi/shared-malloc:local       SMPI_SHARED_MALLOC (the congestors'
#                                        payload, infra/comm_mem.h) maps pages
#                                        on demand, one mapping per buffer
#   one logarithmic, SMP-unaware algorithm per blocking collective:
#     bcast binomial_tree, reduce binomial, allreduce rdb, allgather bruck,
#     gather ompi_binomial, barrier ompi_bruck
#
# Why the collectives: SimGrid 3.32's default selector gathers with a
# linear all-to-all (N^2 messages per MPI_Allgather), and the mpich, ompi
# and mvapich2 selectors run Comm::init_smp on the first bcast, reduce or
# allreduce of every communicator (including the id broadcast inside
# MPI_Comm_split): a ring allgather (N^2 messages) plus an O(N x nodes) loop
# per rank. Either makes a run quadratic or worse in the rank count.
#
# Why rendezvous: SMPI 3.32 sends a message under 64 KiB detached and keeps
# every detached send of the simulation in one list until it finishes;
# finishing one walks the whole list (std::list::remove). With M small
# messages in flight, as in every round of a collective on N ranks, that is
# O(M^2): most of the CPU of a large run (network_test, 4096 ranks at PPN 4:
# 177 s -> 61 s). The printed canary values stayed the same (4096 ranks; the
# JSON's latency Avg moved 0.4%); a small send now completes when its
# receiver has it.
#
# Why local shared malloc: the default mode (global) backs every 1 MiB of a
# shared buffer with a mapping of one file made with MAP_POPULATE, so the
# resident size of the simulation still counts every rank's buffers (the
# alltoall's 2 x n x 4 KiB per rank); local mode maps each buffer once,
# unpopulated, and pages nobody writes are never resident.
#
#   scripts/smpirun.sh -platform platforms/fat-tree-32.xml \
#       -hostfile platforms/hosts-32.txt -np 32 build-simgrid/network_test ...
#
# SMPIRUN=/path/to/smpirun picks another smpirun; SMPI_EXTRA="--cfg=..."
# adds settings (they come after ours, so they win).
set -euo pipefail
smpirun="${SMPIRUN:-smpirun}"
command -v "$smpirun" >/dev/null 2>&1 || {
    echo "smpirun.sh: '$smpirun' not found; install libsimgrid-dev (SimGrid 3.32 or later)" >&2
    exit 1
}
# SimGrid maps a private copy of the program (5 mappings) and a stack with a
# guard page (2, plus 1 for the copy's zeroed data) per simulated rank: 8 per
# rank, measured on network_test. Past vm.max_map_count, the dlopen of one
# rank's copy fails and the run aborts ("failed to map segment"), at about
# 8150 ranks with Linux's default 65530. Say so before starting.
np=""
prev=""
for a in "$@"; do
    [ "$prev" = "-np" ] && np="$a"
    prev="$a"
done
if [[ "$np" =~ ^[0-9]+$ ]] && [ -r /proc/sys/vm/max_map_count ]; then
    limit="$(cat /proc/sys/vm/max_map_count)"
    need=$((8 * np + 512))
    if [ "$need" -gt "$limit" ]; then
        echo "smpirun.sh: $np simulated ranks need about $need memory mappings (SimGrid maps a copy of the program and a stack per rank), more than vm.max_map_count ($limit); raise it as root: sysctl -w vm.max_map_count=$((need * 2))" >&2
        exit 1
    fi
fi
flags=(--cfg=smpi/simulate-computation:no --log=root.thres:warning
       --cfg=smpi/send-is-detached-thresh:0 --cfg=smpi/shared-malloc:local
       --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial --cfg=smpi/allreduce:rdb
       --cfg=smpi/allgather:bruck --cfg=smpi/gather:ompi_binomial --cfg=smpi/barrier:ompi_bruck)
# shellcheck disable=SC2206
extra=(${SMPI_EXTRA:-})
exec "$smpirun" "${flags[@]}" "${extra[@]}" "$@"
