"""The co-run paper's Fig. 5 (mean time against mean stall/flit ratio per
setting, the time over every run of the setting) and Fig. 6 (network-tile
and processor-tile stalls per second against time), on synthetic studies
with hand-computed answers."""
import pytest

from gpcnet.report import study_page
from gpcnet.study import summary


def _run(setting, k, wall, ratio):
    counters = None if ratio is None else {
        "source": "testbed-tc", "stall_counter": "overlimits", "flit_counter": "packets", "interval_s": 1.0,
        "stall_threshold": 1.0, "ports": {}, "series": [],
        "metric": {"stall_ratio": ratio, "samples_kept": 1, "samples_dropped": 0, "intervals": 1}, "errors": []}
    return {"id": f"{setting}-r{k}", "setting": setting, "rotation": k, "status": "ok", "wall_s": wall,
            "app_nodes": ["a"], "congestor_nodes": [], "counters": counters}


def study(runs, settings=("I", "III")):
    return {"kind": "gpcnet_study", "schema_version": 1, "nodes": ["a"], "runs": runs,
            "config": {"study": "corun", "app_command": ["app"], "n": 1, "ppn": 1, "rotations": 3,
                       "launcher": "local", "settings": list(settings), "baseline": "I", "congestor_args": []}}


def test_fig5_time_is_the_mean_over_every_run_of_the_setting():
    # I: 1, 1, 1 s (median 1). III: 1.2, 1.3 and 1.6 s; only the first two have a ratio (0.1, 0.3).
    runs = [_run("I", k, 1.0, 0.05) for k in range(3)]
    runs += [_run("III", 0, 1.2, 0.1), _run("III", 1, 1.3, 0.3), _run("III", 2, 1.6, None)]
    s = summary.summarise(study(runs))
    iii = {p["setting"]: p for p in s["per_setting"]}["III"]
    assert iii["time_mean"] == pytest.approx((1.2 + 1.3 + 1.6) / 3)     # 1.3667, not 1.25 over the two
    assert iii["metric_mean"] == pytest.approx(0.2)
    assert (iii["runs"], iii["ratio_runs"]) == (3, 2)
    html = study_page.render(study(runs))
    assert "III (3 runs, 2 with a ratio)" in html and "runs with a ratio" in html


def test_fig5_a_setting_without_any_ratio_is_no_point():
    runs = [_run("I", k, 1.0, 0.05) for k in range(2)] + [_run("III", k, 2.0, None) for k in range(2)]
    assert [p["setting"] for p in summary.summarise(study(runs))["per_setting"]] == ["I"]


def _with_tiles(run, ntile, ptile):
    run["counters"]["tiles"] = {"ntile": {"stall_per_s": ntile, "flit_per_s": 1.0, "routers": 1, "ports": 2},
                                "ptile": {"stall_per_s": ptile, "flit_per_s": 1.0, "routers": 1, "ports": 1}}
    return run


def test_fig6_network_and_processor_tile_stalls_against_time():
    # I: 1 s each, network tiles 10, 12, 14 stalls/s (mean 12), processor tiles 100.
    # III: 1.5 s each, network tiles 40, processor tiles 50; its third run has no tile rates.
    runs = [_with_tiles(_run("I", k, 1.0, 0.05), 10.0 + 2 * k, 100.0) for k in range(3)]
    runs += [_with_tiles(_run("III", k, 1.5, 0.2), 40.0, 50.0) for k in range(2)] + [_run("III", 2, 1.5, 0.2)]
    t = summary.summarise(study(runs))["tile_stalls"]
    n, p = {x["setting"]: x for x in t["ntile"]["points"]}, {x["setting"]: x for x in t["ptile"]["points"]}
    assert n["I"]["stall_mean"] == pytest.approx(12.0) and n["I"]["stall_se"] == pytest.approx(2 / 3 ** 0.5)
    assert (n["III"]["runs"], n["III"]["tile_runs"]) == (3, 2) and n["III"]["time_mean"] == pytest.approx(1.5)
    # network tiles: (12, 1.0) and (40, 1.5): slope 0.5 / 28, r = +1; processor tiles: (100, 1.0), (50, 1.5): -0.01, -1
    assert t["ntile"]["fit"]["slope"] == pytest.approx(0.5 / 28) and t["ntile"]["fit"]["r"] == pytest.approx(1.0)
    assert t["ptile"]["fit"]["slope"] == pytest.approx(-0.01) and t["ptile"]["fit"]["r"] == pytest.approx(-1.0)
    assert p["I"]["stall_mean"] == 100.0
    html = study_page.render(study(runs))
    assert 'id="fig-tiles"' in html and "processor tiles: normalised time = 2.000 + -0.01 x stalls/s, r = -1.00" in html


def test_fig6_without_tile_rates_says_so():
    runs = [_run("I", k, 1.0, 0.05) for k in range(2)]
    html = study_page.render(study(runs, settings=("I",)))
    assert "No tile stall rates in this study" in html and 'id="fig-tiles"' not in html
