"""--burst-sweep on emulated nodes (docs/experiments.md#burst-sweep,
docs/results-json.md#burst-matrix): one cheap 2 x 2 x 1 grid checked for
its structure (cells, tables, the printed matrix), not its timings, and
bad grids refused on every rank."""
import pytest

GRID = "ON=20ms,50ms;OFF=20ms,40ms;INTENSITY=0.5"
TITLE = "Congestion Impact by Burst Shape"


@pytest.fixture(scope="module")
def swept(harness, tmp_path_factory):
    out = tmp_path_factory.mktemp("burst-sweep")
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", "--seed", "7",
                    "--output-dir", out, "--quiet", *harness.QUICK, *harness.QUICK_CONGESTORS,
                    "--time-limit", "0.3", "--tests", "rr_two_sided_lat,multiple_allreduce",
                    "--burst-sweep", GRID, "--timeline", timeout=180)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    return p, harness.load_json(out / "network_load_test.json")


def test_every_cell_is_a_loaded_phase_in_the_json(swept, harness):
    _, doc = swept
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    m = doc["burst_matrix"]
    assert m["on_s"] == [0.02, 0.05] and m["off_s"] == [0.02, 0.04] and m["intensity"] == [0.5]
    assert m["tests"] == ["rr_two_sided_lat", "multiple_allreduce"] and m["repetitions"] == 1
    # Intensity outermost, then ON, OFF fastest.
    shapes = [(c["on_s"], c["off_s"], c["intensity"]) for c in m["cells"]]
    assert shapes == [(0.02, 0.02, 0.5), (0.02, 0.04, 0.5), (0.05, 0.02, 0.5), (0.05, 0.04, 0.5)]
    ids = {t["id"]: t for t in doc["tables"]}
    for i, cell in enumerate(m["cells"]):
        assert cell["table"] == f"loaded_burst:{i}"
        rows = ids[cell["table"]]["rows"]
        assert [r["test"] for r in rows] == m["tests"]
        assert all(r["avg"] > 0 for r in rows)
        assert len(cell["avg"]) == len(cell["p99"]) == 2
        assert all(v is not None and v > 0 for v in cell["avg"] + cell["p99"])
        assert f"congestors_during:burst_{i}:rr_two_sided_lat" in ids
    # The published steady phase still runs, last, as the reference.
    assert "loaded" in ids and all(v > 0 for v in m["steady"]["avg"])
    assert [e["test"] for e in doc["impact"]] == m["tests"]  # only the steady phase's
    assert doc["config"]["burst_sweep"] == {"on_s": [0.02, 0.05], "off_s": [0.02, 0.04],
                                            "intensity": [0.5], "jitter": 0}
    assert "burst_sweep" in doc["config"]["non_default"] and "burst" not in doc["config"]
    names = [ph["name"] for ph in doc["phases"]]
    assert "loaded_burst:3:multiple_allreduce" in names


def test_every_cell_has_its_timeline(swept):
    _, doc = swept
    for test in ("rr_two_sided_lat", "multiple_allreduce"):
        recs = [r for r in doc["timeline"] if r["test"] == test]
        assert [r["table"] for r in recs] == [f"loaded_burst:{i}" for i in range(4)] + ["loaded"]
        assert all(r["schedule_agreed"] for r in recs)
    # Bursty cells have both phases; the steady phase is ON throughout.
    assert all(r["between_bursts"]["values"] + r["during_bursts"]["values"] > 0
               for r in doc["timeline"])
    assert all(r["between_bursts"]["values"] == 0 for r in doc["timeline"] if r["table"] == "loaded")


def test_the_matrix_is_printed_in_80_columns(swept):
    p, doc = swept
    lines = p.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if TITLE in line)
    table = lines[start - 1:]
    assert all(len(line) == 80 for line in table if line), table
    rows = [line for line in table if line.startswith("|") and "Name" not in line and "X |" in line]
    # Per test: the 4 cells in cell order, then the steady reference.
    assert len(rows) == 2 * 5
    assert [r.split("|")[2].strip() for r in rows[:5]] == ["20ms", "20ms", "50ms", "50ms", "steady"]
    assert [r.split("|")[3].strip() for r in rows[:5]] == ["20ms", "40ms", "20ms", "40ms", "-"]
    assert [r.split("|")[4].strip() for r in rows[:5]] == ["50%"] * 4 + ["100%"]
    # The printed Avg is the JSON's, to the printed digit.
    printed = float(rows[0].split("|")[5].strip().rstrip("X"))
    assert printed == pytest.approx(doc["burst_matrix"]["cells"][0]["avg"][0], abs=0.051)
    assert "Network Tests running with Congestion Bursts ON 20ms OFF 40ms at 50%" in p.stdout
    assert "   burst sweep = ON (s) 0.02,0.05; OFF (s) 0.02,0.04; intensity 0.5; jitter 0" \
        in p.stdout


@pytest.mark.parametrize("args,needle", [
    (["--burst-sweep", "ON=;OFF=50ms"], "--burst-sweep: ON: expected 1 to 8 durations > 0"),
    (["--burst-sweep", "ON=10ms;OFF=0"], "--burst-sweep: OFF: expected 1 to 8 durations > 0"),
    (["--burst-sweep", "ON=10ms;OFF=50ms;INTENSITY=1.5"],
     "--burst-sweep: INTENSITY: expected 1 to 8 shares of the full rate"),
    (["--burst-sweep", "ON=10ms,2s;OFF=50ms", "--time-limit", "1"],
     "--burst-sweep: the longest ON period (2 s) must be shorter than the time limit (1 s"),
    (["--burst-sweep", "ON=10ms;OFF=50ms", "--congestor-sweep"],
     "--burst-sweep cannot be combined with --congestor-sweep"),
], ids=["empty-list", "zero-off", "intensity-above-1", "on-longer-than-time-limit",
        "with-congestor-sweep"])
def test_bad_grid_exits_2_on_every_rank(harness, tmp_path, args, needle):
    p = harness.run(10, "network_load_test", "--emulate-nodes", "1", *args, "--output-dir",
                    tmp_path, timeout=60)
    assert p.returncode == 2, p.stderr[-1000:]
    assert p.stderr.count(needle) == 1, p.stderr[-1000:]
    assert not list(tmp_path.iterdir())
