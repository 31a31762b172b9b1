"""What the testbed costs (docs/testbed.md#cost): for each shape, the
seconds `gpcnet testbed up` and `gpcnet testbed down` take, and the CPU
one bulk TCP transfer between the two farthest hosts spends (its sender
and receiver processes, with the forwarding the kernel does in their
context: every switch hop is a veth, a queue and a bridge or route lookup
on this machine's CPUs).

    sudo python3 bench/testbed_up_down.py [--runs 3] [--shapes star,fat-tree,fat-tree3]
        [--transfer-mb 200] [--lock FILE]

Per shape and quantity: min, median and max over the runs. Each run is
one up, one transfer and one down, from nothing to nothing; the testbed's
hosts get unlimited links, so the transfer measures the emulation, not a
rate limit. --lock FILE: hold an flock on FILE around each run (for a
machine where several people share the one testbed). Refuses to start
when a testbed is up. Absolute times are this host's: give them with the
date, the machine and how busy it was.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from timing_lock import held  # bench/: a --lock never opened through a link

REPO = Path(__file__).resolve().parents[1]
SHAPES = {
    "star": ["--topology", "star", "--hosts", "16"],
    "fat-tree": ["--topology", "fat-tree", "--hosts", "16", "--hosts-per-leaf", "4", "--spines", "2"],
    "fat-tree3": ["--topology", "fat-tree3", "--k", "4"],
}
SINK = """
import socket, sys
s = socket.socket(); s.bind((sys.argv[1], 5002)); s.listen(1); print("ready", flush=True)
c, _a = s.accept()
while c.recv(1 << 20):
    pass
"""
SEND = """
import socket, sys
s = socket.socket(); s.connect((sys.argv[1], 5002))
chunk = b"x" * (1 << 20)
for _ in range(int(sys.argv[2])):
    s.sendall(chunk)
s.close()
"""


def gpcnet(*argv) -> float:
    """Run gpcnet of this checkout; the seconds it took."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    t = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "gpcnet", *argv], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, timeout=900)
    if p.returncode:
        raise SystemExit(f"gpcnet {' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return time.monotonic() - t


def transfer_cpu(last: int, mb: int) -> float:
    """CPU seconds (user + system) of a sender on node01 and a receiver on
    the last host moving `mb` MiB: what this machine's CPUs spend on it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    dst = f"198.19.0.{last}"
    sink = subprocess.Popen(["ip", "netns", "exec", f"gtb-node{last:02d}", sys.executable, "-c", SINK,
                             dst], stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        if sink.stdout.readline().strip() != "ready":
            raise SystemExit("the receiver did not start")
        subprocess.run(["ip", "netns", "exec", "gtb-node01", sys.executable, "-c", SEND, dst, str(mb)],
                       check=True, stdin=subprocess.DEVNULL, timeout=600)
        sink.wait(timeout=120)
    finally:
        sink.kill()
        sink.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def one_run(shape: str, mb: int, lock) -> dict:
    with held(lock):
        if Path("/run/gpcnet-testbed/state.json").exists():
            raise SystemExit("a testbed is up: take it down first (this bench builds its own)")
        try:
            up = gpcnet("testbed", "up", *SHAPES[shape], "--host-rate", "none")
            cpu = transfer_cpu(16, mb) if mb else 0.0
        finally:
            down = gpcnet("testbed", "down")
    return {"up_s": up, "down_s": down, "cpu_s_per_gib": cpu * 1024 / mb if mb else 0.0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--shapes", default="star,fat-tree,fat-tree3")
    ap.add_argument("--transfer-mb", type=int, default=200, help="MiB moved per run (0: none)")
    ap.add_argument("--lock", help="hold an flock on this file around each run")
    args = ap.parse_args()
    shapes = args.shapes.split(",")
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown or args.runs < 1 or args.transfer_mb < 0:
        ap.error(f"--shapes: known {', '.join(SHAPES)}; --runs 1 or more; --transfer-mb 0 or more")
    if os.geteuid():
        ap.error("needs root (the testbed does)")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"{args.runs} run(s) per shape, {args.transfer_mb} MiB per transfer")
    print(f"{'shape':<10} {'quantity':<14} {'min':>8} {'median':>8} {'max':>8}")
    for shape in shapes:
        runs = [one_run(shape, args.transfer_mb, args.lock) for _ in range(args.runs)]
        for q in ("up_s", "down_s", "cpu_s_per_gib"):
            v = [r[q] for r in runs]
            print(f"{shape:<10} {q:<14} {min(v):>8.2f} {statistics.median(v):>8.2f} {max(v):>8.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
