"""The co-run baseline (--baseline, default I) and the rotation rule
(rotation r starts r x floor(M/R) nodes into a list of M; R > M refused):
docs/studies.md, S15 and S16 in docs/reliability.md."""
import itertools
import json
import statistics

import pytest

from gpcnet.cli import main
from gpcnet.infra.errors import GpcnetError
from gpcnet.study import document, nodelists, summary


def names(m):
    return [f"n{i:02d}" for i in range(m)]


def run_cli(capsys, argv):
    code = main([str(a) for a in argv])
    o, e = capsys.readouterr()
    return code, o, e


def corun(tmp_path, congestor_bin, *args, app=("true",)):
    return ["study", "corun", "--launcher", "local", "--counters", "none", "--congestor-warmup", "0",
            "--congestor-bin", congestor_bin, "-o", tmp_path / "s.json", *args, "--", *app]


def assert_refused(code, out, err, tmp_path, *words):
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    for w in words:
        assert w in lines[0], lines[0]
    assert out == "" and not list(tmp_path.iterdir()), "nothing run, nothing written"


# -- the rotation rule --------------------------------------------------------

@pytest.mark.parametrize("m", range(3, 25))
def test_every_rotation_is_a_different_placement_while_r_is_at_most_m(m):
    """The rule the message and the docs state: offsets r x floor(M/R) are
    all different for R <= M, and so is every setting's placement."""
    for n, r_count in itertools.product(range(1, m // 3 + 1), range(1, m + 1)):
        offsets = [nodelists.rotation_offset(m, r, r_count) for r in range(r_count)]
        assert offsets == [r * (m // r_count) for r in range(r_count)] and len(set(offsets)) == r_count
        for s in nodelists.SETTINGS:
            seen = {(frozenset(p["app"]), frozenset(p["congestor"]))
                    for p in (nodelists.placement(names(m), n, s, r, r_count) for r in range(r_count))}
            assert len(seen) == r_count, (m, n, r_count, s)


def test_more_rotations_than_nodes_is_refused_naming_both_numbers():
    with pytest.raises(GpcnetError) as e:
        nodelists.check_sizes(names(3), 1, 10)
    msg = str(e.value)
    assert msg.startswith("--rotations 10 asks for 10 placements; a list of 3 nodes allows 3 distinct ones")
    assert "r x floor(M/R) = r x floor(3/10) = 0" in msg and "--rotations 3 or fewer" in msg
    nodelists.check_sizes(names(3), 1, 3)          # R = M: offsets 0, 1, 2
    with pytest.raises(GpcnetError, match="--rotations 13 asks for 13 placements; a list of 12 nodes allows 12"):
        nodelists.placement(names(12), 4, "IV", 0, 13)


def test_the_issue_s_command_is_refused_before_anything_runs(tmp_path, capsys, congestor_bin):
    code, out, err = run_cli(capsys, corun(tmp_path, congestor_bin, "-n", "1", "--nodes", "h[1-3]",
                                           "--rotations", "10", "--settings", "I,II"))
    assert_refused(code, out, err, tmp_path, "--rotations 10", "list of 3 nodes allows 3 distinct")


# -- the baseline ---------------------------------------------------------------

def test_check_baseline():
    assert nodelists.check_baseline("ii", ["II", "IV"]) == "II"
    with pytest.raises(GpcnetError, match=r"^--baseline I is not among --settings II,IV: .*add I to --settings "
                                          r"or give --baseline one of II,IV$"):
        nodelists.check_baseline("I", ["II", "IV"])
    with pytest.raises(GpcnetError, match="--baseline: unknown setting 'V'"):
        nodelists.check_baseline("V", ["I"])


@pytest.mark.parametrize("args,words", [
    (["--settings", "II"], ["--baseline I is not among --settings II", "add I to --settings"]),
    (["--settings", "II,IV", "--baseline", "III"], ["--baseline III is not among --settings II,IV"]),
    (["--settings", "I", "--baseline", "X"], ["--baseline: unknown setting 'X'"]),
])
def test_settings_without_the_baseline_are_refused(tmp_path, capsys, congestor_bin, args, words):
    code, out, err = run_cli(capsys, corun(tmp_path, congestor_bin, "-n", "1", "--nodes", "h[1-3]",
                                           "--rotations", "1", *args))
    assert_refused(code, out, err, tmp_path, *words)


def _doc(baseline=None, times=None):
    times = times or {"I": [2.0, 4.0, 6.0], "II": [1.0, 2.0, 4.0]}
    cfg = {"study": "corun", "app_command": ["app"], "n": 1, "ppn": 1, "rotations": 3, "launcher": "local",
           "settings": list(times), "congestor_args": [], "patterns": None}
    if baseline:
        cfg["baseline"] = baseline
    runs = [{"id": f"{s}-r{k}", "setting": s, "rotation": k, "status": "ok", "wall_s": t}
            for s, ts in times.items() for k, t in enumerate(ts)]
    return {"kind": "gpcnet_study", "schema_version": 1, "config": cfg, "nodes": ["a", "b", "c"], "runs": runs}


def test_summary_normalises_to_the_named_baseline():
    s = summary.summarise(_doc("II"))
    assert s["baseline"] == "II" and s["baseline_median_s"] == 2.0
    assert s["settings"]["II"]["normalised"] == [0.5, 1.0, 2.0]
    assert s["settings"]["I"]["normalised"] == [1.0, 2.0, 3.0]
    old = summary.summarise(_doc())                  # no "baseline": setting I, as before
    assert old["baseline"] == "I" and old["settings"]["II"]["normalised"] == [0.25, 0.5, 1.0]


def test_a_document_naming_a_baseline_it_did_not_run_is_invalid():
    with pytest.raises(GpcnetError, match=r"x.json: invalid study: \$.config.baseline: 'IV' is not one of its "
                                          r"settings \(I, II\)"):
        document.validate(_doc("IV"), "x.json")
    document.validate(_doc("II"), "x.json")
    document.validate(_doc(times={"II": [1.0]}), "x.json")   # an older study without I still reads


def test_a_study_with_baseline_ii_normalises_to_ii(tmp_path, capsys, congestor_bin):
    code, out, err = run_cli(capsys, corun(tmp_path, congestor_bin, "-n", "1", "--nodes", "h[1-3]",
                                           "--rotations", "3", "--settings", "I,II", "--baseline", "II"))
    assert code == 0, out + err
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["config"]["baseline"] == "II"
    assert sorted({r["offset"] for r in doc["runs"]}) == [0, 1, 2]
    ref = statistics.median(r["wall_s"] for r in doc["runs"] if r["setting"] == "II")
    s = summary.summarise(document.load(tmp_path / "s.json"))
    assert s["baseline"] == "II" and s["baseline_median_s"] == ref
    assert s["settings"]["II"]["stats"]["median"] == 1.0
    assert s["settings"]["I"]["normalised"] == sorted(r["wall_s"] / ref for r in doc["runs"] if r["setting"] == "I")
    code, _, err = run_cli(capsys, ["report", tmp_path / "s.json", "-o", tmp_path / "r.html"])
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "(setting II)" in html and "divided by the median of setting II" in html
    # --resume under another baseline: refused, the study untouched
    before = (tmp_path / "s.json").read_text()
    code, _, err = run_cli(capsys, corun(tmp_path, congestor_bin, "-n", "1", "--nodes", "h[1-3]", "--rotations",
                                         "3", "--settings", "I,II", "--resume"))
    assert code == 2 and "--resume with a different baseline ('II' there, 'I' now)" in err
    assert (tmp_path / "s.json").read_text() == before
