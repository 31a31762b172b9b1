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
#
#   scripts/smpirun.sh --model ns-3 -platform P.xml ...
#
# --model (first argument only) picks SimGrid's network model: "flow" (the
# default: SMPI's flow-level model, the only one that scales to thousands
# of ranks) or "ns-3" (packet-level TCP over point-to-point links, where
# queues build up and latency grows under load; docs/portability.md,
# "Packet-level simulation"). ns-3 needs a platform of explicit hosts,
# routers and one-hop routes (platforms/ns3_platform.py writes them).
#
# Why the ns-3 send buffer: SimGrid 3.32's ns-3 binding closes the
# receiver's socket as soon as the sender has handed the whole message to
# TCP; a message larger than ns-3's TCP send buffer (128 KiB by default) is
# handed over in two steps, the receiver's close reaches the sender while it
# still sends, and SimGrid aborts ("total_bytes (=131088) is not
# sent_bytes(=30000)"). A send buffer larger than any message of the suite
# (1 GiB; ns-3 buffers no payload bytes, only counts) avoids the second
# step. A NS_ATTRIBUTE_DEFAULT of your own replaces this one.
#
# Why surf/precision 1e-10 under ns-3: smpirun sets 1e-9, the length of
# one ns-3 clock tick. SimGrid 3.32 rounds an ns-3 step shorter than the
# precision down to 0 (network_ns3.cpp, next_occurring_event), so a step of
# exactly 1 ns is sometimes lost and ns-3's clock runs ahead of SimGrid's.
# The next ns-3 step then ends past the end of a short sleep of SMPI (the
# 10 ns MPI_Wtime sleep); SimGrid jumps over it, the sleep never ends, and
# the run stops with "Oops! Deadlock detected" (on platforms with more than
# one router: docs/portability.md). A precision below one tick keeps the
# clocks together. SMPI_EXTRA=--cfg=surf/precision:... overrides it.
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
fi
model="flow"
if [ "${1:-}" = "--model" ]; then
    model="${2:-}"
    shift $(($# >= 2 ? 2 : 1))
fi
case "$model" in
    flow) model_flags=() ;;
    ns-3)
        model_flags=(--cfg=network/model:ns-3 --cfg=surf/precision:1e-10)
        export NS_ATTRIBUTE_DEFAULT="${NS_ATTRIBUTE_DEFAULT:-ns3::TcpSocket::SndBufSize=1073741824}" ;;
    *) echo "smpirun.sh: --model must be flow or ns-3, not '$model'" >&2; exit 2 ;;
esac
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
exec "$smpirun" "${flags[@]}" "${model_flags[@]}" "${extra[@]}" "$@"
