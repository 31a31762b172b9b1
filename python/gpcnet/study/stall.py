"""The stall/flit metric of the co-run study (Zhang et al., Section II-B),
computed from counters sampled during a run.

Input: cumulative counter readings taken every --counter-interval seconds,
`{"time": t, "ports": {port: {"stall": n, "flit": n}}}`. The paper's steps:

1. "we take a rolling difference to estimate instantaneous values": each
   pair of consecutive readings gives every port's stalls and flits per
   second over that interval (a counter that wrapped once is unwrapped, at
   its width when known; one absent from either reading or saturated gives
   no rate: InfiniBand's 32-bit base counters stop at 2^32-1, so the flit
   count is read from the 64-bit extended counters where a port has them,
   the stall count, PortXmitWait, from the base ones, which alone have it).
2. "we ignore the samples where stall-per-second is smaller than a
   threshold": a (port, interval) sample whose stall rate is below
   --stall-threshold (stalls per second) is dropped, as is one that moved no
   flit (its ratio is undefined).
3. The ratio of a router is the average over its tiles of stall/flit (a mean
   of per-port ratios, not a ratio of sums), averaged only over the routers
   that hold the application's nodes and over the application's duration:
   the mean over (router, interval) of the mean over that router's kept
   ports, each (router, interval) weighted by the interval's length. The
   paper's samples are all one second long (LDMS); ours are too, except the
   last one, cut short when the application ends, which weighs only what
   it lasted (1 s at 0.1 then a 0.05 s tail at 1.0 is 0.143, not 0.55).
   Only ports in the scope (the application's network tiles) count.

tile_stall_rate gives a run's stalls per second on a set of tiles
(network or processor), averaged over routers and the duration in the same
way, without the threshold: the paper's Fig. 6.
"""

from __future__ import annotations

import statistics

from gpcnet.study.counters import IB_SATURATED, counter_delta


def _saturating(reading: dict) -> tuple:
    """Which of a port's counters stop at 2^32-1: `saturates` is true (both:
    InfiniBand's base counters), or the list of them (the 64-bit extended
    PortXmitData beside the base PortXmitWait: ["stall"])."""
    sat = reading.get("saturates")
    if sat is True:
        return ("stall", "flit")
    return tuple(c for c in sat if c in ("stall", "flit")) if isinstance(sat, list) else ()


def intervals(readings: list, start: float) -> list:
    """Consecutive readings -> [{"t", "dt", "rates": {port: [stalls/s, flits/s]}}];
    t is the interval's end in seconds since `start` (the application's start)."""
    out = []
    for before, after in zip(readings, readings[1:]):
        dt = after["time"] - before["time"]
        if dt <= 0:
            continue
        rates = {}
        for port, a in after["ports"].items():
            b = before["ports"].get(port)
            if b is None:
                continue
            if any(IB_SATURATED in (b.get(c), a.get(c)) for c in _saturating(a)):
                continue     # a 32-bit counter at its ceiling says nothing about the interval
            bits = a.get("bits") or {}
            ds = counter_delta(b.get("stall"), a.get("stall"), bits.get("stall"))
            df = counter_delta(b.get("flit"), a.get("flit"), bits.get("flit"))
            if ds is None or df is None:
                continue
            rates[port] = [ds / dt, df / dt]
        out.append({"t": round(after["time"] - start, 6), "dt": round(dt, 6), "rates": rates})
    return out


def add_means(series: list, scope: dict, prefix: str = "") -> None:
    """Each interval's mean stall and flit rate over the scope's ports that
    have a rate (what the time-series figure draws), as PREFIXstall_per_s
    and PREFIXflit_per_s; None when none has."""
    for iv in series:
        got = [r for p, r in iv["rates"].items() if p in scope]
        iv[prefix + "stall_per_s"] = statistics.fmean(r[0] for r in got) if got else None
        iv[prefix + "flit_per_s"] = statistics.fmean(r[1] for r in got) if got else None


def weighted_mean(pairs: list):
    """sum(v x w) / sum(w) of (value, weight) pairs; None when there are none
    (or every weight is 0)."""
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total > 0 else None


def tile_stall_rate(series: list, scope: dict) -> dict:
    """A run's stalls and flits per second on the tiles of `scope`: in each
    interval the mean over routers of the mean over their tiles that have a
    rate, then the mean over intervals weighted by their length (the
    paper's Fig. 6: "averaged over routers and durations"; no threshold:
    it is a rate, not a ratio that could surge)."""
    stalls, flits = [], []
    for iv in series:
        per_router: dict = {}
        for port, rate in iv["rates"].items():
            if port in scope:
                per_router.setdefault(scope[port]["router"], []).append(rate)
        if per_router:
            stalls.append((statistics.fmean(statistics.fmean(r[0] for r in v) for v in per_router.values()),
                           iv["dt"]))
            flits.append((statistics.fmean(statistics.fmean(r[1] for r in v) for v in per_router.values()),
                          iv["dt"]))
    return {"stall_per_s": weighted_mean(stalls), "flit_per_s": weighted_mean(flits),
            "routers": len({p["router"] for p in scope.values()}), "ports": len(scope)}


def stall_ratio(series: list, scope: dict, threshold: float) -> dict:
    """The metric over the ports of `scope` ({port: {"router": name}})."""
    values, kept, dropped = [], 0, 0
    for iv in series:
        per_router: dict = {}
        for port, (stalls, flits) in iv["rates"].items():
            if port not in scope:
                continue
            if stalls < threshold or flits <= 0:
                dropped += 1
                continue
            kept += 1
            per_router.setdefault(scope[port]["router"], []).append(stalls / flits)
        values.extend((statistics.fmean(v), iv["dt"]) for v in per_router.values())
    out = {"stall_ratio": weighted_mean(values) if values else None, "reason": None,
           "weighting": "duration", "samples_kept": kept, "samples_dropped": dropped,
           "intervals": len(series)}
    if not values:
        if not scope:
            out["reason"] = ("no port in the scope: no network-tile counter serves the application's nodes "
                             "(a single switch has no switch-to-switch port)")
        elif not series:
            out["reason"] = "fewer than two counter readings during the run (shorter than --counter-interval?)"
        elif kept + dropped == 0:
            out["reason"] = "no rate for any port of the application's (counters absent or saturated)"
        else:
            out["reason"] = (f"all {dropped} samples below --stall-threshold {threshold:g} stalls/s "
                             "or without flits")
    return out


def run_ratio(run: dict):
    """A run's stall/flit ratio from its record, or None (no counters, or
    none that counted)."""
    metric = (run.get("counters") or {}).get("metric") or {}
    return metric.get("stall_ratio")
