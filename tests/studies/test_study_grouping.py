"""A study report's work grows with its runs, not runs x settings: the
runs are grouped by setting once (summary.by_setting), and a document that
names a setting or pattern twice is refused in one line. Work is counted
(reads of the runs' fields), never timed."""
import json

import pytest

from gpcnet.cli import main
from gpcnet.study import stats, summary

PATTERNS = 1_999
ROTATIONS = 10
READS_PER_RUN = 40        # reads of one run's fields, all figures and Table I together (25 now)


class Budget(Exception):
    pass


class CountedRun(dict):
    """A run whose every field read counts against a budget shared by the
    whole document; past it, the report fails at once (a scan of every run
    per setting would read each run ten thousand times)."""
    reads = [0, 0]           # [done, allowed]

    def _count(self):
        CountedRun.reads[0] += 1
        if CountedRun.reads[0] > CountedRun.reads[1]:
            raise Budget(f"more than {CountedRun.reads[1]} reads of the runs' fields")

    def __getitem__(self, key):
        self._count()
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._count()
        return super().get(key, default)


def big_bully_study():
    """20,000 runs: the control and 1,999 patterns, 10 rotations each.
    Rotation k of pattern pN takes 10 x (1 + N / 10,000) + 0.5 k s (the
    control: 10 + 0.5 k); its slowest bully rank sent 1000 + N MiB/s."""
    settings = ["control"] + [f"p{i}" for i in range(1, PATTERNS + 1)]
    runs = []
    for s in settings:
        n = 0 if s == "control" else int(s[1:])
        for k in range(ROTATIONS):
            runs.append(CountedRun(
                id=f"{s}-r{k}", setting=s, rotation=k, status="ok", wall_s=10.0 * (1 + n / 10_000) + k * 0.5,
                counters={"metric": {"stall_ratio": n / 10_000}, "stall_counter": "s", "flit_counter": "f",
                          "tiles": {"ntile": {"stall_per_s": float(n)}, "ptile": {"stall_per_s": 1.0}}},
                congestor={"kernels": [{"slowest_rank": {"mib_s": 1000.0 + n}}]}))
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": [],
            "config": {"study": "bully", "app_command": ["a"], "n": 1, "ppn": 1, "rotations": ROTATIONS,
                       "launcher": "local", "settings": settings, "baseline": "control",
                       "patterns": settings[1:], "congestor_args": []},
            "runs": runs}


def test_the_report_reads_each_run_a_bounded_number_of_times():
    doc = big_bully_study()
    runs = len(doc["runs"])
    assert runs == 20_000
    CountedRun.reads[:] = [0, READS_PER_RUN * runs]
    s = summary.summarise(doc)
    t = stats.table_i(doc)
    assert CountedRun.reads[0] <= READS_PER_RUN * runs
    # and the numbers are each setting's own: the control's median is 12.25 s (10 ... 14.5)
    assert s["baseline_median_s"] == pytest.approx(12.25)
    p500 = s["settings"]["p500"]
    assert p500["runs"] == 10 and p500["normalised"] == pytest.approx([(10.5 + k / 2) / 12.25 for k in range(10)])
    assert len(s["per_setting"]) == PATTERNS + 1 and len(s["ci_app"]) == PATTERNS
    ci = {c["congested"]: c for c in s["ci_app"]}["p500"]
    assert ci["paired"] == pytest.approx([(10.5 + k / 2) / (10 + k / 2) for k in range(10)])
    fig6 = {p["setting"]: p for p in s["tile_stalls"]["ntile"]["points"]}
    assert fig6["p500"]["stall_mean"] == 500.0 and fig6["p500"]["tile_runs"] == 10
    rows = {r["pattern"]: r for r in t["rows"]}
    assert len(rows) == PATTERNS and rows["p500"]["runs"] == 10
    assert rows["p500"]["slowest_rank"]["min_mib_s"] == 1500.0
    assert t["control_runs"] == 10


def test_the_budget_catches_a_scan_per_setting():
    # the counter itself: scanning every run once per setting (the report before
    # by_setting) is refused long before it ends
    doc = big_bully_study()
    CountedRun.reads[:] = [0, READS_PER_RUN * len(doc["runs"])]
    with pytest.raises(Budget):
        for s in doc["config"]["settings"]:
            [r for r in doc["runs"] if r["setting"] == s]


def small_study(**config):
    runs = [{"id": f"{s}-r0", "setting": s, "rotation": 0, "status": "ok", "wall_s": 1.0}
            for s in ("control", "incast")]
    cfg = {"study": "bully", "app_command": ["a"], "n": 1, "ppn": 1, "rotations": 1, "launcher": "local",
           "settings": ["control", "incast"], "baseline": "control", "patterns": ["incast"],
           "congestor_args": []}
    cfg.update(config)
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": [], "config": cfg, "runs": runs}


@pytest.mark.parametrize("config, says", [
    ({"settings": ["control", "incast", "control"]},
     "$.config.settings: 'control' is listed twice; a study names each of its settings once"),
    ({"patterns": ["incast", "incast"]},
     "$.config.patterns: 'incast' is listed twice; a study names each of its patterns once"),
])
def test_a_setting_or_pattern_named_twice_is_one_line_and_exit_2(tmp_path, capsys, config, says):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(small_study(**config)))
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and str(path) in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_a_study_naming_each_once_is_valid():
    doc = small_study()
    from gpcnet.study import document
    document.validate(doc, "s.json")          # no error
