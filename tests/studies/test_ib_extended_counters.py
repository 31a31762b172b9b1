"""InfiniBand switch ports read with the 64-bit extended counters
(`perfquery -x`, PortCountersExtended) where a port has them: on a busy
fabric that never resets its counters the 32-bit base PortXmitData sits at
4294967295 and no interval would have a rate. PortXmitWait (the stall)
exists only in the base set and is still read there. A port without the
extended set falls back to the base counters, with the reason recorded in
the run's `counters.counter_set` and shown. Recorded formats:
tests/studies/perfquery/ (README there)."""
import json
from pathlib import Path

import pytest

from gpcnet.study import counters, runner, sampling, stall

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "perfquery"

# perfquery [-x] LID PORT: the fixture of the test's current reading ($STATE/reading).
PERFQUERY = r"""#!/bin/sh
set_=basic
if [ "$1" = "-x" ]; then set_=extended; shift; fi
n=$(cat "$STATE/reading")
f="$FIXTURES/lid$1-port$2.$set_.$n.txt"
if [ -f "$f" ]; then cat "$f"; exit 0; fi
if [ "$set_" = extended ] && [ -f "$FIXTURES/lid$1-port$2.basic.$n.txt" ]; then
  echo "perfquery: iberror: failed: PerfMgt ClassPortInfo 0x1400; No extended counter support indicated" >&2
  exit 255
fi
echo "ibwarn: [4242] mad_rpc: _do_madrpc failed; dport (Lid $1)" >&2
exit 1
"""

TARGETS = [{"key": "spine1/17", "lid": 5, "port": 17}, {"key": "spine2/3", "lid": 7, "port": 3}]
SCOPE = {"spine1/17": {"router": "leaf1"}, "spine2/3": {"router": "leaf1"}}
NO_EXTENDED = ("perfquery -x 7 3: exit 255: perfquery: iberror: failed: PerfMgt ClassPortInfo 0x1400; No extended "
               "counter support indicated; the 32-bit PortXmitData of the base counters is read (it saturates)")


@pytest.fixture
def perfquery(tmp_path, monkeypatch):
    """A stand-in perfquery on PATH; returns a function that sets the reading number."""
    bin_dir, state = tmp_path / "bin", tmp_path / "state"
    bin_dir.mkdir()
    state.mkdir()
    (bin_dir / "perfquery").write_text(PERFQUERY)
    (bin_dir / "perfquery").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("STATE", str(state))
    monkeypatch.setenv("FIXTURES", str(FIXTURES))
    return lambda n: (state / "reading").write_text(f"{n}\n")


def readings(perfquery, targets, pq) -> list:
    out = []
    for n in (1, 2, 3):
        perfquery(n)
        r = counters.fabric_reading("node01", targets, pq)
        r["time"] = float(n)            # one reading a second
        out.append(r)
    return out


class Done:
    """A sampler that has stopped, with these readings (as JobSampler.stop gives them)."""
    same_clock, source, ptile_scope = False, "infiniband-fabric", {}

    def __init__(self, lines, scope):
        self.lines, self.scope = lines, scope

    def stop(self):
        return {"node01": [{"time": r["time"], "ports": r["ports"], "basic": r.get("basic", {})}
                           for r in json.loads(json.dumps(self.lines))]}, []


def test_the_extended_counters_where_a_port_has_them_and_the_base_ones_with_the_reason(perfquery):
    pq = counters.PerfQuery()
    lines = readings(perfquery, TARGETS, pq)
    assert lines[0]["ports"]["spine1/17"] == {"stall": 1200000000, "flit": 918273645501234,
                                              "saturates": ["stall"], "bits": {"flit": 64}}
    assert lines[0]["ports"]["spine2/3"] == {"stall": 500, "flit": 1000000, "saturates": True}
    assert all(r["basic"] == {"spine2/3": NO_EXTENDED} for r in lines)
    rec = sampling.record(Done(lines, SCOPE), 0.0, 1.0, 0.0)
    # spine1/17: 400,000 stalls per 4,000,000 extended flits (0.1), though its base PortXmitData sits
    # at 4294967295; spine2/3: 600,000 per 2,000,000 (0.3); one router: 0.2 in each interval.
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.2)
    assert rec["metric"]["samples_kept"] == 4 and rec["metric"]["samples_dropped"] == 0
    assert rec["counter_set"] == {"extended": 1, "basic": 1, "basic_reasons": {"spine2/3": NO_EXTENDED}}
    line = runner._finished({"wall_s": 2.0, "counters": rec})
    assert line == ("2.000 s; 1 of 2 switch ports read with the 32-bit base PortXmitData, which saturates "
                    f"(e.g. spine2/3: {NO_EXTENDED})")


def test_the_base_counters_alone_lose_the_saturated_port(perfquery, monkeypatch):
    """What the sampler did before: the base counters only. The busy port's
    PortXmitData is at its ceiling: no rate; the ratio is the other port's."""
    pq = counters.PerfQuery()
    monkeypatch.setattr(pq, "_choose", lambda lid, port: pq.basic.__setitem__((lid, port), "base set only"))
    rec = sampling.record(Done(readings(perfquery, TARGETS, pq), SCOPE), 0.0, 1.0, 0.0)
    assert rec["metric"]["stall_ratio"] == pytest.approx(0.3)
    assert rec["metric"]["samples_kept"] == 2


def test_a_saturated_port_without_the_extended_set_says_why_there_is_no_ratio(perfquery):
    targets = [{"key": "spine3/1", "lid": 9, "port": 1}]
    rec = sampling.record(Done(readings(perfquery, targets, counters.PerfQuery()), {"spine3/1": {"router": "leaf1"}}),
                          0.0, 1.0, 0.0)
    assert rec["metric"]["stall_ratio"] is None
    reason = rec["metric"]["reason"]
    assert reason.startswith("no rate for any port of the application's (counters absent or saturated); "
                             "1 of 1 switch ports read with the 32-bit base PortXmitData, which saturates")
    assert "perfquery -x 9 1: exit 255" in reason
    assert rec["counter_set"]["basic"] == 1 and rec["counter_set"]["extended"] == 0


def test_the_choice_is_kept_for_the_port(perfquery):
    """A port that answered -x at its first reading is read from the extended
    set from then on: a port that stops answering is absent from that
    reading, never read from the base set (a rate mixing both is no rate)."""
    pq = counters.PerfQuery()
    perfquery(1)
    assert pq.read(5, 17)["bits"] == {"flit": 64}
    perfquery(4)     # no fixture: the port does not answer
    assert pq.read(5, 17) is None and pq.why_basic(5, 17) is None
    # a port that does not answer at its first reading is not given a set yet
    fresh = counters.PerfQuery()
    assert fresh.read(5, 17) is None and fresh.why_basic(5, 17) is None and not fresh.extended
    perfquery(2)
    assert fresh.read(5, 17)["bits"] == {"flit": 64}


def test_widths_and_saturation_per_counter():
    ceiling = counters.IB_SATURATED
    ext = lambda stall, flit: {"stall": stall, "flit": flit, "saturates": ["stall"], "bits": {"flit": 64}}  # noqa: E731
    # a 64-bit flit count passing 2^32 - 1 is a count like any other; a base stall count there is not
    iv = stall.intervals([{"time": 0.0, "ports": {"p": ext(10, ceiling - 5)}},
                          {"time": 1.0, "ports": {"p": ext(20, ceiling)}},
                          {"time": 2.0, "ports": {"p": ext(ceiling, ceiling + 95)}}], 0.0)
    assert iv[0]["rates"] == {"p": [10.0, 5.0]} and iv[1]["rates"] == {}
    # a 64-bit counter that went down wrapped at 2^64, not at 2^32
    iv = stall.intervals([{"time": 0.0, "ports": {"p": ext(10, 2 ** 64 - 10)}},
                          {"time": 1.0, "ports": {"p": ext(20, 2 ** 31)}}], 0.0)
    assert iv[0]["rates"] == {"p": [10.0, 2.0 ** 31 + 10]}
    assert counters.counter_delta(2 ** 31, 5, 64) == 2 ** 64 - 2 ** 31 + 5
    # base counters (saturates: true): either at the ceiling is no rate
    base = lambda stall, flit: {"stall": stall, "flit": flit, "saturates": True}  # noqa: E731
    assert stall.intervals([{"time": 0.0, "ports": {"p": base(1, ceiling)}},
                            {"time": 1.0, "ports": {"p": base(2, ceiling)}}], 0.0)[0]["rates"] == {}


@pytest.mark.parametrize("value", ["²", "٣", "7" * 5000, "", "-1", "1e3", " 12a"])
def test_counter_values_are_ascii_digits(value):
    assert counters.counter_value(value) is None
    assert counters.counter_value("4294967295") == 2 ** 32 - 1 and counters.counter_value("0") == 0
