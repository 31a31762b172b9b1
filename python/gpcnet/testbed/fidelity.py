"""Emulation fidelity: whether the host, not the emulated fabric, set the
numbers of a testbed run.

Every host, switch and link of the testbed is emulated on this machine's
CPUs: the ranks, the kernel's packet work (softirq) and the rate limiters'
timers share them. When the CPUs are saturated, packets wait for a CPU
rather than for a link, and a non-blocking star can read a Congestion
Impact of 3X. A run records three things to tell the two apart:

- cpu: the share of the machine's CPU time that was idle over the run
  (/proc/stat, every CPU together; iowait counts as idle: a CPU waiting
  for a disk could have run a packet) and the share stolen by a
  hypervisor (steal), when the kernel reports it;
- links: for every switch port whose queue stayed full for a while, how
  much of its rate it carried then. A rate limiter with packets queued
  sends at its rate unless the CPU that should run it is busy elsewhere;
- queues: where queues built (overlimits, drops or a backlog), so that a
  reader sees which links the run congested.

The verdict is "host-bound" when the CPUs had less than CPU_IDLE_MIN idle,
more than STEAL_MAX stolen, or a full queue's link carried less than
LINK_CARRIED_MIN of its rate; "faithful" otherwise; "unknown" when
/proc/stat could not be read. docs/testbed.md (Emulation fidelity) says
why these thresholds.
"""

from __future__ import annotations

from gpcnet.testbed.counters import port_key
from gpcnet.testbed.faults import _canonical_of
from gpcnet.text import text_safe

# Below 10% idle the ranks and the packet work queue for the CPUs: on the
# 2-core machine of docs/testbed.md a star read 1.4X to 3.7X at 0-5% idle
# (load 15), where a quiet host reads about 1X.
CPU_IDLE_MIN = 0.10
# Time a hypervisor took from this VM's CPUs is time no packet moved.
STEAL_MAX = 0.10
# A link with packets queued that sends less than 80% of its rate is
# waiting for a CPU: tbf sends at its rate to the byte when it runs.
LINK_CARRIED_MIN = 0.80
# Less than this many seconds of full queue on a link is too little to judge it.
LINK_FULL_MIN_S = 1.0
# Sampling the switch ports for the link check when --counters-interval
# does not: a reading takes about 10 ms of one CPU (2% at this interval).
SAMPLE_INTERVAL_S = 0.5
# At most this many ports listed in the footer (the JSON has them all).
FOOTER_PORTS = 4

_CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def parse_cpu_line(text: str):
    """The machine's CPU times from /proc/stat's text ({field: ticks}, the
    first "cpu " line: every CPU together), or None when it has none."""
    for line in text.splitlines():
        words = line.split()
        if words and words[0] == "cpu":
            try:
                ticks = [int(w) for w in words[1:1 + len(_CPU_FIELDS)]]
            except ValueError:
                return None
            if len(ticks) < 4:
                return None
            return dict(zip(_CPU_FIELDS, ticks + [0] * (len(_CPU_FIELDS) - len(ticks))))
    return None


def read_cpu(path: str = "/proc/stat"):
    """One reading of the machine's CPU times, or None when unreadable."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return parse_cpu_line(f.read(4096))   # the "cpu " line comes first
    except OSError:
        return None


def cpu_shares(before, after):
    """{"idle_share", "steal_share", "ticks"} between two readings, or None."""
    if not before or not after:
        return None
    d = {k: after[k] - before[k] for k in _CPU_FIELDS}
    total = sum(d.values())
    if total <= 0 or any(v < 0 for v in d.values()):
        return None
    return {"idle_share": (d["idle"] + d["iowait"]) / total, "steal_share": d["steal"] / total,
            "ticks": total}


def link_checks(samples: list, rates: dict) -> list:
    """Per switch port whose queue built: its counters over the run and,
    where its queue stayed full for LINK_FULL_MIN_S or more, the share of
    its rate it carried then. An interval counts as full when the rate
    limiter held packets back in it (overlimits) and the queue had a
    backlog both at its start and at its end. samples: the counter
    series' samples (gpcnet.testbed.counters.series); rates: {port: bit/s
    in force}."""
    out = {}
    prev_backlog: dict = {}
    for s in samples:
        for port, c in s["ports"].items():
            q = out.setdefault(port, {"port": port, "rate_bps": rates.get(port, 0), "bytes": 0,
                                      "drops": 0, "overlimits": 0, "max_backlog": 0,
                                      "full_s": 0.0, "full_bytes": 0})
            q["bytes"] += c["bytes"]
            q["drops"] += c["drops"]
            q["overlimits"] += c["overlimits"]
            q["max_backlog"] = max(q["max_backlog"], c["backlog"])
            if c["overlimits"] > 0 and c["backlog"] > 0 and prev_backlog.get(port, 0) > 0:
                q["full_s"] += s["dt"]
                q["full_bytes"] += c["bytes"]
            prev_backlog[port] = c["backlog"]
    checks = []
    for q in out.values():
        if not (q["overlimits"] or q["drops"] or q["max_backlog"]):
            continue
        rate = q["rate_bps"]
        judged = bool(rate) and q["full_s"] >= LINK_FULL_MIN_S
        q["carried_share"] = q["full_bytes"] * 8 / (rate * q["full_s"]) if judged else None
        q["full_s"] = round(q["full_s"], 6)
        checks.append(q)
    return sorted(checks, key=lambda q: (-q["overlimits"], -q["drops"], q["port"]))


def verdict(cpu, links: list) -> tuple:
    """(verdict, reasons) from cpu_shares() and link_checks(); "unknown"
    when the CPU times are missing and no link says host-bound."""
    reasons = []
    if cpu is not None and cpu["idle_share"] < CPU_IDLE_MIN:
        reasons.append(f"host CPUs {cpu['idle_share']:.1%} idle over the run, below {CPU_IDLE_MIN:.0%}")
    if cpu is not None and cpu["steal_share"] > STEAL_MAX:
        reasons.append(f"{cpu['steal_share']:.1%} of the CPU time stolen by the hypervisor, "
                       f"above {STEAL_MAX:.0%}")
    for q in links:
        if q["carried_share"] is not None and q["carried_share"] < LINK_CARRIED_MIN:
            reasons.append(f"{q['port']} carried {q['carried_share']:.0%} of its rate while its "
                           f"queue was full for {q['full_s']:.1f} s, below {LINK_CARRIED_MIN:.0%}")
    if cpu is None and not reasons:
        return "unknown", ["the host's CPU times (/proc/stat) could not be read"]
    return ("host-bound" if reasons else "faithful"), reasons


def record(cpu_before, cpu_after, seconds: float, series: dict, rates: dict) -> dict:
    """The `fidelity` object of a run (docs/results-json.md)."""
    cpu = cpu_shares(cpu_before, cpu_after)
    links = link_checks(series.get("samples", []), rates)
    v, reasons = verdict(cpu, links)
    return {"verdict": v, "reasons": reasons, "seconds": round(seconds, 6),
            "cpu": {"idle_share": cpu["idle_share"], "steal_share": cpu["steal_share"]} if cpu else None,
            "links": links, "queues_built": [q["port"] for q in links],
            "sample_interval_s": series.get("interval_s"),
            "samples": len(series.get("samples", [])), "sample_errors": list(series.get("errors", [])),
            "thresholds": {"cpu_idle_min": CPU_IDLE_MIN, "steal_max": STEAL_MAX,
                           "link_carried_min": LINK_CARRIED_MIN, "link_full_min_s": LINK_FULL_MIN_S}}


def cpu_record(cpu_before, cpu_after, seconds: float) -> dict:
    """The CPU part alone, for a study's run on the testbed (gpcnet study
    samples only the switch ports of its metric, not every queue): the
    verdict from the CPU idle and steal shares."""
    cpu = cpu_shares(cpu_before, cpu_after)
    v, reasons = verdict(cpu, [])
    return {"verdict": v, "reasons": reasons, "seconds": round(seconds, 6),
            "cpu": {"idle_share": cpu["idle_share"], "steal_share": cpu["steal_share"]} if cpu else None,
            "links_checked": False,
            "thresholds": {"cpu_idle_min": CPU_IDLE_MIN, "steal_max": STEAL_MAX}}


def footer(fid: dict) -> str:
    """The lines printed after the job's own output."""
    head = f"Emulation fidelity: {fid['verdict']}"
    if fid["reasons"]:
        head += f" ({'; '.join(fid['reasons'])})"
    cpu = fid["cpu"]
    parts = [f"CPU idle {cpu['idle_share']:.1%}, steal {cpu['steal_share']:.1%} over {fid['seconds']:.1f} s"
             if cpu else "CPU not measured"]
    if fid["links"]:
        shown = [text_safe.terminal(q["port"]) + (f" (carried {q['carried_share']:.0%} of its rate while full)"
                                                   if q["carried_share"] is not None else "")
                 for q in fid["links"][:FOOTER_PORTS]]
        more = len(fid["links"]) - FOOTER_PORTS
        parts.append("queues built at " + ", ".join(shown) + (f" and {more} more" if more > 0 else ""))
    else:
        parts.append("no queue built")
    return head + "\n  " + "; ".join(parts) + "\n"


def rates_in_force(topo, faults: list) -> dict:
    """{switch port: bit/s} of every switch port, with the degrade faults
    in force applied (as gpcnet.testbed.faults rebuilds the queues)."""
    out = {}
    for link in topo.links:
        pct = next((f["percent"] for f in faults
                    if f.get("kind") == "degrade" and f.get("target") == _canonical_of(topo, link)), None)
        for p in (link.a, link.b):
            if p.switch:
                rate = p.rate
                if pct is not None and rate:
                    rate = max(8000, int(rate * pct / 100))
                out[port_key(p)] = rate
    return out
