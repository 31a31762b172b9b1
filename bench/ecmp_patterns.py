"""Hedera's stride and random patterns on the testbed's k=4 fat-tree3,
measured beside the flow-level model (python/gpcnet/testbed/ecmp_model.py;
docs/testbed.md#against-published-results).

    sudo python3 bench/ecmp_patterns.py [--routings static,ecmp]
        [--patterns stride1,stride2,stride4,stride8,random,randbij]
        [--rate 10mbit] [--duration 15] [--warmup 3] [--repeats 3] [--seed 1]
        [--lock FILE] [--json FILE [--force]]

Per routing: `gpcnet testbed up --topology fat-tree3 --k 4 --routing R
--host-rate RATE`, then per pattern one TCP stream per flow between the
hosts' namespaces (a receiver and a sender process each, plain sockets:
16 MPI ranks would leave a 2-CPU host nothing for the packets), counted
by its receiver over the same window of `--duration` seconds after
`--warmup` seconds of ramp, `--repeats` times on new connections (new
source ports: ECMP hashes each afresh, as the model's draws); then `down`.
The aggregate (the sum of the flows' rates) over 16 x RATE is the
measured fraction (mean, lowest, highest of the repeats), printed beside the
model's (non-blocking switch, the routing in use; ECMP its expected value
over random path draws) and the run's emulation-fidelity verdict, measured
as `gpcnet testbed run` measures it (gpcnet.testbed.run_fidelity). A
host-bound verdict says the measured fractions are the CPU's, not the
fabric's. --lock FILE: hold an flock on FILE from each `up` to its `down`
(a machine where several people share the one testbed). Refuses to start
when a testbed is up.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from timing_lock import held  # bench/: a --lock never opened through a link

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from gpcnet.infra import safe_write  # noqa: E402
from gpcnet.infra.errors import GpcnetError  # noqa: E402
from gpcnet.testbed import ecmp_model, launch, run_fidelity  # noqa: E402
from gpcnet.testbed.topology import parse_rate  # noqa: E402

PORT0 = 6000   # the flow from host s listens on PORT0 + s at its destination
# A receiver: per line of window times on stdin (CLOCK_MONOTONIC, one clock
# for every namespace), accept the flow's next connection and count what
# arrives in the window.
SINK = r"""
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(4); print("ready", flush=True)
for line in sys.stdin:
    t0, t1 = map(float, line.split())
    c, _a = s.accept()
    c.settimeout(0.2)
    total, at0, at1 = 0, None, None
    while True:
        try:
            n = len(c.recv(1 << 14))
        except socket.timeout:
            n = -1
        now = time.monotonic()
        if at0 is None and now >= t0:
            at0 = (now, total)
        if at1 is None and now >= t1:
            at1 = (now, total)
        if n == 0 or at1 is not None:
            break
        total += max(n, 0)
    c.close()
    if at0 is None or at1 is None:
        print("short 0 0", flush=True)
    else:
        print("ok", at1[1] - at0[1], at1[0] - at0[0], flush=True)
"""
# A sender: per repeat, a new connection (a new source port, so ECMP hashes
# it afresh), streamed until a little after the window.
SEND = r"""
import socket, sys, time
chunk = b"x" * (1 << 14)
for line in sys.stdin:
    s = socket.socket(); s.connect((sys.argv[1], int(sys.argv[2]))); print("connected", flush=True)
    _t0, t1 = map(float, sys.stdin.readline().split())
    s.settimeout(1.0)
    while time.monotonic() < t1 + 1.0:
        try:
            s.send(chunk)
        except socket.timeout:
            continue
        except OSError:
            break
    s.close()
    print("done", flush=True)
"""


def gpcnet(*argv):
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    p = subprocess.run([sys.executable, "-m", "gpcnet", *argv], capture_output=True, text=True,
                       env=env, stdin=subprocess.DEVNULL, timeout=900)
    if p.returncode:
        raise SystemExit(f"gpcnet {' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()[-500:]}")


def in_host(topo, number: int, script: str, *args) -> subprocess.Popen:
    host = topo.hosts[number - 1]
    return subprocess.Popen(["ip", "netns", "exec", host.ns, sys.executable, "-c", script, *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def tell(procs, line: str, want: str = None) -> list:
    """Write line to every process; with want, read a line from each and
    check its first word."""
    for p in procs:
        p.stdin.write(line + "\n")
        p.stdin.flush()
    if want is None:
        return []
    got = [p.stdout.readline().split() for p in procs]
    if any(not g or g[0] != want for g in got):
        raise SystemExit(f"a flow's process did not answer '{want}' (it died?)")
    return got


def measure(topo, flows, warmup: float, duration: float, repeats: int) -> list:
    """Per repeat: each flow's rate (bit/s) over the window, and the
    window's fidelity."""
    procs, out = [], []
    try:
        sinks = [in_host(topo, d, SINK, topo.hosts[d - 1].nics[0].ip, str(PORT0 + s)) for s, d in flows]
        procs += sinks
        if any(p.stdout.readline().strip() != "ready" for p in sinks):
            raise SystemExit("a receiver did not start")
        senders = [in_host(topo, s, SEND, topo.hosts[d - 1].nics[0].ip, str(PORT0 + s)) for s, d in flows]
        procs += senders
        for _ in range(repeats):
            tell(senders, "connect", "connected")
            with run_fidelity.measured(topo, None) as m:
                t0 = time.monotonic() + warmup
                tell(procs, f"{t0} {t0 + duration}")
                got = [p.stdout.readline().split() for p in sinks]
                if any(not g or g[0] not in ("ok", "short") for g in got):
                    raise SystemExit("a receiver died")
                rates = [int(g[1]) * 8 / float(g[2]) if g[0] == "ok" else 0.0 for g in got]
                if any(p.stdout.readline().strip() != "done" for p in senders):
                    raise SystemExit("a sender died")
            out.append({"rates_bps": rates, "fidelity": m["fidelity"]})
        return out
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--routings", default="static,ecmp")
    ap.add_argument("--patterns", default="stride1,stride2,stride4,stride8,random,randbij")
    ap.add_argument("--rate", default="10mbit", help="every link's rate (default 10mbit)")
    ap.add_argument("--duration", type=float, default=15.0, help="seconds counted per pattern")
    ap.add_argument("--warmup", type=float, default=3.0, help="seconds of ramp before the count")
    ap.add_argument("--repeats", type=int, default=3,
                    help="windows per pattern, each on new connections (ECMP draws new paths)")
    ap.add_argument("--seed", type=int, default=1, help="for random and randbij, and the model's draws")
    ap.add_argument("--draws", type=int, default=400, help="the model's ECMP path draws")
    ap.add_argument("--lock", help="hold an flock on this file from each up to its down")
    ap.add_argument("--json", help="write every flow's rate and each run's fidelity here")
    ap.add_argument("--force", action="store_true", help="replace an existing --json file")
    a = ap.parse_args()
    routings, names = a.routings.split(","), a.patterns.split(",")
    if any(r not in ("static", "ecmp") for r in routings):
        ap.error(f"--routings {a.routings}: static, ecmp or both (comma-separated)")
    if not (a.duration > 0 and a.warmup >= 0 and a.repeats >= 1):
        ap.error("--duration above 0, --warmup 0 or more, --repeats 1 or more")
    tree = ecmp_model.FatTree3(4)
    try:
        rate = parse_rate(a.rate)
    except GpcnetError as e:
        ap.error(f"--rate {a.rate}: {e}")
    try:
        patterns = {n: ecmp_model.pattern(n, tree.hosts, a.seed) for n in names}
    except GpcnetError as e:
        ap.error(f"--patterns: {e}")
    if not rate:
        ap.error("--rate: give a rate (10mbit): the fraction is of it")
    if os.geteuid():
        ap.error("needs root (the testbed does)")
    if a.json:
        try:
            safe_write.prepare(a.json, force=a.force)
        except GpcnetError as e:
            ap.error(f"--json {a.json}: {e}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}, k=4 fat-tree3 at {a.rate}, {a.warmup:g} s + "
          f"{a.duration:g} s, {a.repeats} time(s) per pattern, seed {a.seed}")
    print(f"{'routing':<7} {'pattern':<8} {'nonblocking':>11} {'model':>6} {'measured':>8} "
          f"{'lowest-highest':>14} {'CPU idle':>9}  verdict")
    runs = []
    for routing in routings:
        with held(a.lock):
            if launch.netns.load_state():
                raise SystemExit("a testbed is up: take it down first (this bench builds its own)")
            try:
                gpcnet("testbed", "up", "--topology", "fat-tree3", "--k", "4", "--routing", routing,
                       "--host-rate", a.rate)
                topo = launch.current()
                for name, flows in patterns.items():
                    got = measure(topo, flows, a.warmup, a.duration, a.repeats)
                    model = (ecmp_model.static(tree, flows)["fraction"] if routing == "static" else
                             ecmp_model.ecmp_monte_carlo(tree, flows, a.draws, a.seed)["fraction"])
                    fractions = [sum(g["rates_bps"]) / (tree.hosts * rate) for g in got]
                    verdicts = [g["fidelity"]["verdict"] for g in got]
                    idles = [g["fidelity"]["cpu"]["idle_share"] for g in got if g["fidelity"]["cpu"]]
                    row = {"routing": routing, "pattern": name, "flows": flows,
                           "nonblocking": ecmp_model.nonblocking(tree, flows)["fraction"],
                           "model": model, "measured": fractions, "repeats": got}
                    runs.append(row)
                    idle = f"{min(idles):.0%}-{max(idles):.0%}" if idles else "?"
                    verdict = verdicts[0] if len(set(verdicts)) == 1 else "/".join(verdicts)
                    print(f"{routing:<7} {name:<8} {row['nonblocking']:>11.3f} {model:>6.3f} "
                          f"{sum(fractions) / len(fractions):>8.3f} {min(fractions):>5.3f}-"
                          f"{max(fractions):.3f} {idle:>9}  {verdict}", flush=True)
            finally:
                gpcnet("testbed", "down")
    if a.json:
        safe_write.write_text(a.json, json.dumps({"rate": a.rate, "runs": runs}, indent=1) + "\n",
                              force=a.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
