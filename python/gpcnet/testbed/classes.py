"""Traffic classes on the testbed's switch ports (`gpcnet testbed up
--traffic-classes N`): which class a packet is in, and the scheduler that
serves the classes of one port. Marking a rank's packets with its class
is class_marking.py's; the per-class counters are read here too.

A packet's class is the precedence of its IP header (the top 3 bits of
the TOS byte, the DSCP class selector CSk): class k is DSCP CSk = 8k, TOS
32k. It travels in the packet, so every hop classifies it alike, bridged
(--routing static) or routed (ecmp), with no state shared between them.
Packets without a mark (ARP, other processes) are class 0.

Each switch port with a rate gets, in place of its rate limiter (tbf) and
queue, one HTB tree (Linux's hierarchical token bucket, sch_htb):

    root htb H: (default class 0)
      H:1   rate = ceil = the port's rate: the link
        H:10+k  one class per traffic class, its own queue (the --qdisc
                kind, --queue packets) under it
    u32 filters on H: send TOS precedence k to H:10+k

so the backlog builds in the per-class queues, where the scheduler
chooses among them. HTB was chosen because it is in every kernel that
has tbf (this project's kernels have neither prio, ets nor drr) and it
does both disciplines:

- strict: class k has priority N-1-k (the highest class is served
  first). The highest class is guaranteed the whole link, so HTB sends
  its packets as they come, ahead of any class that must borrow; every
  other class guarantees only 8 kbit/s and borrows the rest of the link
  in priority order: a lower class gets the link only when every higher
  one is empty (802.1Q strict priority, less the 8 kbit/s each keeps).
  With every class borrowing, the highest one's packets waited for the
  link's tokens behind the scheduler's timer: on the worked example
  (docs/testbed.md) the canaries' class gave back 21% of the impact where
  weighted sharing, its class guaranteed 10%, gave back 89%;
- weighted: class k guarantees weight_k % of the link, all at one
  priority, the quantum of each proportional to its weight: backlogged
  classes share the link by weight and an idle class's share goes to the
  others (802.1Qaz ETS's weighted sharing).
"""

from __future__ import annotations

import re
import subprocess

from gpcnet.infra.errors import GpcnetError

MAX_CLASSES = 8             # the 3 precedence bits
SCHEDULERS = ("strict", "weighted")
STRICT_FLOOR = 8000         # bit/s each class keeps under strict priority (HTB needs a rate)
FIRST_MINOR = 0x10          # class k is H:(10+k) in tc's hex
LEAF_BASE = 0x100           # class k's queue is handle (100+k): (hex, unique per port)


def tos(k: int) -> int:
    """The TOS byte of class k: DSCP class selector CSk, ECN bits 0."""
    return k << 5


def plan(count, scheduler: str | None, weights: str | None) -> dict:
    """--traffic-classes, --class-scheduler, --class-weights -> the
    testbed's classes ({} without --traffic-classes). Refused before
    anything is created: one line each."""
    if count is None:
        if scheduler is not None or weights is not None:
            raise GpcnetError("--class-scheduler and --class-weights need --traffic-classes N")
        return {}
    text = str(count).strip()
    if not re.fullmatch(r"\d{1,2}", text) or not 2 <= int(text) <= MAX_CLASSES:
        raise GpcnetError(f"--traffic-classes {count!r}: expected 2 to {MAX_CLASSES} classes "
                          "(the IP precedence bits carry the class)")
    n = int(text)
    scheduler = scheduler or ("weighted" if weights is not None else "strict")
    if scheduler not in SCHEDULERS:
        raise GpcnetError(f"--class-scheduler {scheduler!r}: unknown scheduler (known: {', '.join(SCHEDULERS)})")
    if scheduler == "strict":
        if weights is not None:
            raise GpcnetError("--class-weights is for --class-scheduler weighted (strict priority has no weights)")
        return {"count": n, "scheduler": "strict", "weights": None}
    if weights is None:
        raise GpcnetError(f"--class-scheduler weighted needs --class-weights, {n} whole percentages that sum "
                          f"to 100, e.g. {','.join(_even(n))}")
    parts = [w.strip() for w in str(weights).split(",")]
    if len(parts) != n or not all(re.fullmatch(r"\d{1,3}", w) and 1 <= int(w) <= 100 for w in parts):
        raise GpcnetError(f"--class-weights {weights!r}: expected {n} whole percentages of 1 to 100, one per "
                          f"class (class 0 first), e.g. {','.join(_even(n))}")
    values = [int(w) for w in parts]
    if sum(values) != 100:
        raise GpcnetError(f"--class-weights {weights!r}: the weights sum to {sum(values)}, not 100")
    return {"count": n, "scheduler": "weighted", "weights": values}


def _even(n: int) -> list:
    base = [100 // n] * n
    base[0] += 100 - sum(base)
    return [str(b) for b in base]


def check_rates(classes: dict, topo) -> None:
    """A class scheduler needs a queue, and a queue builds only behind a
    rate: refuse --host-rate none."""
    if classes and not topo.params.get("host_rate"):
        raise GpcnetError("--traffic-classes needs rate-limited links (a queue, where the classes are "
                          "scheduled, builds only behind a rate): give --host-rate, e.g. 1gbit")


def describe(classes: dict) -> str:
    if not classes:
        return ""
    if classes["scheduler"] == "strict":
        return f"{classes['count']} traffic classes, strict priority (class {classes['count'] - 1} first)"
    return f"{classes['count']} traffic classes, weighted {','.join(map(str, classes['weights']))}"


def tc_lines(dev: str, rate: int, parent: str | None, handle: int, topo, burst: int) -> list:
    """The tc batch lines of one port's class scheduler (module docstring)."""
    classes = topo.classes
    n = classes["count"]
    h = f"{handle:x}"
    where = f"parent {parent}" if parent else "root"
    lines = [f"qdisc add dev {dev} {where} handle {h}: htb default {FIRST_MINOR:x}",
             f"class add dev {dev} parent {h}: classid {h}:1 htb rate {rate}bit ceil {rate}bit "
             f"burst {burst}b cburst {burst}b"]
    for k in range(n):
        minor = f"{FIRST_MINOR + k:x}"
        if classes["scheduler"] == "strict":
            guaranteed = rate if k == n - 1 else STRICT_FLOOR
            prio, quantum = n - 1 - k, 65536
        else:
            w = classes["weights"][k]
            guaranteed, prio, quantum = max(STRICT_FLOOR, rate * w // 100), 0, w * 1514
        lines.append(f"class add dev {dev} parent {h}:1 classid {h}:{minor} htb rate {guaranteed}bit "
                     f"ceil {rate}bit burst {burst}b cburst {burst}b prio {prio} quantum {quantum}")
        lines.append(f"qdisc add dev {dev} parent {h}:{minor} handle {LEAF_BASE + k:x}: {_leaf(topo)}")
        lines.append(f"filter add dev {dev} parent {h}: protocol ip prio 1 u32 match ip tos "
                     f"0x{tos(k):02x} 0xe0 flowid {h}:{minor}")
    return lines


def _leaf(topo) -> str:
    """Each class's queue: the testbed's --qdisc with its --queue length."""
    if topo.qdisc == "fq_codel":
        return f"fq_codel limit {topo.queue}" + (" ecn" if topo.ecn else " noecn")
    if topo.qdisc == "codel":
        return f"codel limit {topo.queue}" + (" ecn" if topo.ecn else " noecn")
    return f"pfifo limit {topo.queue}"


def add_scheduler(port, rate: int, parent: str | None, handle: int, topo, burst: int) -> None:
    """Build one port's class scheduler with tc (one batch, in the port's
    namespace)."""
    batch = "\n".join(tc_lines(port.ifname, rate, parent, handle, topo, burst)) + "\n"
    r = subprocess.run(["tc", "-n", port.ns, "-batch", "-"], input=batch, capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["tc failed"])[0]
        raise GpcnetError(f"{port.ns}/{port.ifname}: cannot build the traffic-class scheduler: {first}")


def class_of(minor: int, count: int):
    k = minor - FIRST_MINOR
    return k if 0 <= k < count else None


def class_stats(ipr, idx: int, count: int) -> dict:
    """{class k: bytes, packets, drops, backlog} of one port's scheduler
    (the HTB leaf classes; the backlog is the bytes in the class's queue)."""
    out = {}
    for msg in ipr.get_classes(index=idx):
        handle = msg.get("handle")
        if msg.get_attr("TCA_KIND") != "htb" or handle is None:
            continue
        k = class_of(handle & 0xFFFF, count)
        if k is None:
            continue
        st = msg.get_attr("TCA_STATS2")
        basic = st.get_attr("TCA_STATS_BASIC") if st else None
        queue = st.get_attr("TCA_STATS_QUEUE") if st else None
        out[str(k)] = {"bytes": basic["bytes"] if basic else 0, "packets": basic["packets"] if basic else 0,
                       "drops": queue["drops"] if queue else 0, "backlog": queue["backlog"] if queue else 0}
    return out


CLASS_FIELDS = ("bytes", "packets", "drops", "backlog")


def render(ports: dict) -> str:
    """The per-class counters of every switch port that has them."""
    head = f"{'port':<18} {'class':>5} {'bytes':>14} {'packets':>10} {'drops':>8} {'backlog':>8}"
    lines = ["traffic classes:", head, "-" * len(head)]
    for key, p in ports.items():
        for k, c in sorted((p.get("classes") or {}).items(), key=lambda kv: int(kv[0])):
            lines.append(f"{key:<18} {k:>5} {c['bytes']:>14} {c['packets']:>10} {c['drops']:>8} {c['backlog']:>8}")
    return "\n".join(lines) + "\n"


def delta(before: dict, after: dict) -> dict:
    """after - before of one port's class counters (backlog: a level, kept as after)."""
    return {k: {f: (v - before.get(k, {}).get(f, 0) if f != "backlog" else v) for f, v in c.items()}
            for k, c in after.items()}
