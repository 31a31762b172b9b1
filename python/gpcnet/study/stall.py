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

A series may hold the intervals of several nodes, each timed by its own
sampler (t - dt to t, on one time axis: seconds since the application
started): every port's rate holds over its own node's interval, and the
means are integrals over time, so each node's interval weighs its own
length (node A's 0.05 s tail never counts as node B's full second), and a
router whose ports two nodes read takes, at each instant, the mean of the
ports read then. One node's consecutive intervals give the per-interval
means above exactly.

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


def time_means(pieces: list) -> tuple:
    """Means over time of values that each hold over an interval of one
    router: `pieces` are (start, end, router, value). At each instant a
    router's value is the mean of its pieces holding then. Returns
    (pooled, across): pooled weighs every (router, instant) alike,
    sum over routers of the integral of the router's value / sum over
    routers of the time it had one; across takes the mean over the routers
    with a value at each instant, integrated over the time any had one.
    None for no time at all. One pass over the pieces' ends in time order
    (a router's sums updated as its pieces start and end), so a run of
    many nodes costs its number of pieces, not pieces x routers."""
    events = []
    for start, end, router, value in pieces:
        if end > start:
            events.append((end, 0, router, value))      # at one instant, ends before starts
            events.append((start, 1, router, value))
    events.sort(key=lambda e: (e[0], e[1]))
    sums: dict = {}
    counts: dict = {}
    mean_sum, active = 0.0, 0          # sum of the active routers' means, how many
    pooled = [0.0, 0.0]
    across = [0.0, 0.0]
    prev, i = None, 0
    while i < len(events):
        now = events[i][0]
        if prev is not None and active and now > prev:
            span = now - prev
            pooled[0] += mean_sum * span
            pooled[1] += active * span
            across[0] += mean_sum / active * span
            across[1] += span
        touched = set()
        while i < len(events) and events[i][0] == now:
            _, starts, router, value = events[i]
            if router not in touched:
                touched.add(router)
                if counts.get(router):
                    mean_sum -= sums[router] / counts[router]
                    active -= 1
            sums[router] = sums.get(router, 0.0) + (value if starts else -value)
            counts[router] = counts.get(router, 0) + (1 if starts else -1)
            i += 1
        for router in touched:
            if counts[router]:
                mean_sum += sums[router] / counts[router]
                active += 1
            else:
                sums[router] = 0.0             # no drift carried into the router's next piece
        prev = now
    return (pooled[0] / pooled[1] if pooled[1] > 0 else None,
            across[0] / across[1] if across[1] > 0 else None)


def _span(iv: dict) -> tuple:
    return iv["t"] - iv["dt"], iv["t"]


def tile_stall_rate(series: list, scope: dict) -> dict:
    """A run's stalls and flits per second on the tiles of `scope`: at each
    instant the mean over routers of the mean over their tiles that have a
    rate, averaged over the time (the paper's Fig. 6: "averaged over
    routers and durations"; no threshold: it is a rate, not a ratio that
    could surge). One node's intervals: each interval's mean over routers
    weighted by its length."""
    stalls, flits = [], []
    for iv in series:
        start, end = _span(iv)
        for port, rate in iv["rates"].items():
            if port in scope:
                stalls.append((start, end, scope[port]["router"], rate[0]))
                flits.append((start, end, scope[port]["router"], rate[1]))
    return {"stall_per_s": time_means(stalls)[1], "flit_per_s": time_means(flits)[1],
            "routers": len({p["router"] for p in scope.values()}), "ports": len(scope)}


def stall_ratio(series: list, scope: dict, threshold: float) -> dict:
    """The metric over the ports of `scope` ({port: {"router": name}}):
    every (router, instant) with a kept sample weighs alike, so each
    interval weighs its own length, whichever node sampled it."""
    pieces, kept, dropped = [], 0, 0
    for iv in series:
        start, end = _span(iv)
        for port, (stalls, flits) in iv["rates"].items():
            if port not in scope:
                continue
            if stalls < threshold or flits <= 0:
                dropped += 1
                continue
            kept += 1
            pieces.append((start, end, scope[port]["router"], stalls / flits))
    ratio = time_means(pieces)[0] if pieces else None
    out = {"stall_ratio": ratio, "reason": None,
           "weighting": "duration", "samples_kept": kept, "samples_dropped": dropped,
           "intervals": len(series)}
    if ratio is None:
        if not scope:
            out["reason"] = ("no port in the scope: no network-tile counter serves the application's nodes "
                             "(a single switch has no switch-to-switch port)")
        elif not series:
            out["reason"] = "fewer than two counter readings during the run (shorter than --counter-interval?)"
        elif kept + dropped == 0:
            out["reason"] = "no rate for any port of the application's (counters absent or saturated)"
        elif kept == 0:
            out["reason"] = (f"all {dropped} samples below --stall-threshold {threshold:g} stalls/s "
                             "or without flits")
        else:
            out["reason"] = "the kept samples' intervals last no time"
    return out


def run_ratio(run: dict):
    """A run's stall/flit ratio from its record, or None (no counters, or
    none that counted)."""
    metric = (run.get("counters") or {}).get("metric") or {}
    return metric.get("stall_ratio")
