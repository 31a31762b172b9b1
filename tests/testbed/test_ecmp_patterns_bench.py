"""bench/ecmp_patterns.py end to end on the k=4 fat-tree3: it brings the
tree up, streams a pattern's 16 flows, records every flow's rate and each
window's fidelity beside the model, and takes the tree down again."""
import json
import subprocess
import sys

from conftest import REPO, STATE_DIR, our_namespaces


def test_the_bench_measures_every_flow_and_leaves_nothing_up(clean, tmp_path):
    out = tmp_path / "ecmp.json"
    p = subprocess.run([sys.executable, str(REPO / "bench" / "ecmp_patterns.py"), "--routings", "ecmp",
                        "--patterns", "stride8", "--warmup", "1", "--duration", "2", "--repeats", "2",
                        "--draws", "20", "--json", str(out)],
                       capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr[-2000:]
    assert not (STATE_DIR / "state.json").exists() and not our_namespaces()
    doc = json.loads(out.read_text())
    (run,) = doc["runs"]
    assert run["routing"] == "ecmp" and run["pattern"] == "stride8"
    assert run["flows"] == [[x + 1, (x + 8) % 16 + 1] for x in range(16)]
    assert len(run["repeats"]) == 2 and len(run["measured"]) == 2
    for window, fraction in zip(run["repeats"], run["measured"]):
        # Every flow moved data, none above its 10 Mbit/s link (a little
        # slack for the window's edges), and the fraction is their sum.
        assert len(window["rates_bps"]) == 16
        assert all(0 < r <= 10e6 * 1.05 for r in window["rates_bps"])
        assert fraction == sum(window["rates_bps"]) / 160e6
        assert window["fidelity"]["verdict"] in ("faithful", "host-bound", "unknown")
    line = next(x for x in p.stdout.splitlines() if x.startswith("ecmp"))
    assert line.split()[1:4] == ["stride8", "1.000", f"{run['model']:.3f}"]
