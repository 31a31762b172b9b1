"""Whole studies with --launcher local: every job is a local mpirun, each
study node PPN ranks of it, the congestor on emulated nodes (its names
`<host>#<i>` map back to the study's). Applications are plain commands
(mpirun starts non-MPI programs too), so runs take about a second."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import process_guard

from gpcnet.cli import main
from gpcnet.study import summary

PY = str(Path(__file__).resolve().parents[2] / "python")


def study(tmp_path, kind, *args, out="s.json"):
    return ["study", kind, "--launcher", "local", "--congestor-warmup", "0.5", "-o", str(tmp_path / out), *args]


def run_cli(capsys, argv):
    code = main([str(a) for a in argv])
    o, e = capsys.readouterr()
    return code, o, e


def test_corun_records_every_run_with_its_nodes_and_congestor(tmp_path, capsys, congestor_bin):
    argv = study(tmp_path, "corun", "--nodes", "n[1-6]", "-n", "2", "--rotations", "2",
                 "--settings", "I,IV", "--congestor-bin", congestor_bin,
                 "--fom-regex", r"fom=(\d+)", "--", "sh", "-c", "sleep 0.3; echo fom=7")
    code, out, err = run_cli(capsys, argv)
    assert code == 0, out + err
    doc = json.loads((tmp_path / "s.json").read_text())
    runs = {r["id"]: r for r in doc["runs"]}
    assert sorted(runs) == ["I-r0", "I-r1", "IV-r0", "IV-r1"]
    assert runs["I-r0"]["app_nodes"] == ["n1", "n2"] and runs["I-r0"]["congestor_nodes"] == []
    assert runs["IV-r1"]["app_nodes"] == ["n4", "n6"] and runs["IV-r1"]["congestor_nodes"] == ["n5", "n1"]
    for r in runs.values():
        assert r["status"] == "ok" and r["wall_s"] >= 0.3 and r["fom"] == 7.0
        assert r["counters"]["series"], "counters read during the run (this host's)"
        assert r["counters"]["metric"]["intervals"] == len(r["counters"]["series"])
        if r["setting"] == "IV":
            c = r["congestor"]
            assert c["ran_only_where_planned"] and sorted(c["ran_on"]) == sorted(r["congestor_nodes"])
            assert c["stop_reason"] == "stop_file" and c["kernels"][0]["kernel"] == "rma_bcast"
            assert c["kernels"][0]["bytes"] > 0
        else:
            assert "congestor" not in r
    # the report reads it
    code, out, err = run_cli(capsys, ["report", tmp_path / "s.json", "-o", tmp_path / "r.html"])
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "<svg" in html and "I &rarr; III" not in html


def test_bully_flows_run_only_on_the_bully_nodes(tmp_path, capsys, congestor_bin):
    topo = tmp_path / "topology.conf"
    topo.write_text("SwitchName=l0 Nodes=a[1-8]\nSwitchName=l1 Nodes=b[1-8]\n"
                    "SwitchName=top Switches=l[0-1]\n")
    argv = study(tmp_path, "bully", "--topology", topo, "--patterns", "pairs-light,incast",
                 "--uplinks-per-leaf", "1", "-n", "2", "--rotations", "1", "--congestor-bin", congestor_bin,
                 "--congestor-args", "--congestor-bytes 8192", "--", "sleep", "0.5")
    code, out, err = run_cli(capsys, argv)
    assert code == 0, out + err
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["config"]["baseline"] == "control" and doc["config"]["settings"] == ["control", "pairs-light", "incast"]
    assert doc["config"]["bully_plan"]["pairs-light"]["pairs_per_leaf_pair"] == 1
    runs = {r["id"]: r for r in doc["runs"]}
    assert sorted(runs) == ["control-r0", "incast-r0", "pairs-light-r0"]
    assert runs["control-r0"]["congestor_nodes"] == []
    assert runs["control-r0"]["app_nodes"] == runs["incast-r0"]["app_nodes"] == ["a1", "a2"]   # packed
    assert runs["pairs-light-r0"]["app_nodes"] == ["a1", "b1"]                                 # spread
    assert runs["pairs-light-r0"]["flows"] == [["a8", "b8"], ["b8", "a8"]]   # bully nodes: the end of each leaf
    # the receivers beside the application (l0 holds a1, a2), the senders in the other leaf
    assert runs["incast-r0"]["flows"] == [["b6", "a6"], ["b7", "a7"], ["b8", "a8"]]
    for rid in ("pairs-light-r0", "incast-r0"):
        c = runs[rid]["congestor"]
        assert runs[rid]["status"] == "ok"
        assert c["ran_only_where_planned"], c
        k = c["kernels"][0]
        assert k["kernel"] == "flows" and k["bytes"] > 0
        assert 0 < k["slowest_rank"]["mib_s"] <= k["mib_s_total"]          # network_congestor's per-rank JSON
        assert not set(runs[rid]["app_nodes"]) & set(runs[rid]["congestor_nodes"])
    flows = (tmp_path / "s.d" / "flows-incast-r0.txt").read_text().splitlines()
    assert flows[0].startswith("#") and all("#" in ln for ln in flows[1:])
    code, out, err = run_cli(capsys, ["report", tmp_path / "s.json", "-o", tmp_path / "r.html"])
    assert code == 0, err
    html = (tmp_path / "r.html").read_text()
    assert "Table I" in html and "Light bully" in html and "Incast bully" in html


def test_interleaved_runs_the_instances_at_once(tmp_path, capsys, congestor_bin):
    """8 nodes hold 2 instances of 3: both start together on random disjoint
    nodes; instance 0 is the run's time and figure of merit."""
    topo = tmp_path / "topology.conf"
    topo.write_text("SwitchName=l0 Nodes=a[1-4]\nSwitchName=l1 Nodes=b[1-4]\nSwitchName=top Switches=l[0-1]\n")
    # A rendezvous, not a clock: the control's 3 ranks pass; the interleaved
    # ranks wait until all 6 are in (3 + 6 files), which never happens if
    # the instances ran one after the other (then exit 3 after 60 s).
    meet = tmp_path / "meet"
    meet.mkdir()
    script = (f"touch {meet}/$$; if [ $(ls {meet} | wc -l) -gt 3 ]; then i=0; "
              f"while [ $(ls {meet} | wc -l) -lt 9 ]; do i=$((i+1)); [ $i -gt 600 ] && exit 3; sleep 0.1; done; "
              "fi; echo fom=5")
    argv = study(tmp_path, "bully", "--topology", topo, "--patterns", "interleaved", "-n", "3", "--rotations", "1",
                 "--congestor-bin", congestor_bin, "--fom-regex", r"fom=(\d+)", "--", "sh", "-c", script)
    code, out, err = run_cli(capsys, argv)
    assert code == 0, out + err
    assert "interleaved: 2 instances of 3 nodes fit in the topology's 8 nodes (the poster ran 10)" in out
    doc = json.loads((tmp_path / "s.json").read_text())
    r = {x["id"]: x for x in doc["runs"]}["interleaved-r0"]
    assert r["status"] == "ok" and r["fom"] == 5.0 and r["congestor_nodes"] == []
    inst = r["instances"]
    assert len(inst) == 2 and r["app_nodes"] == inst[0] and not set(inst[0]) & set(inst[1])
    assert [x["exit"] for x in r["instance_results"]] == [0, 0]
    assert len(list(meet.iterdir())) == 9


def test_failures_are_recorded_and_the_study_goes_on(tmp_path, capsys, congestor_bin):
    # The application fails in rotation 0 only (the marker file), a missing
    # program fails to start, and a congestor that dies is caught.
    marker = tmp_path / "fail-once"
    marker.touch()
    argv = study(tmp_path, "corun", "--nodes", "n[1-3]", "-n", "1", "--rotations", "2",
                 "--settings", "I", "--congestor-bin", congestor_bin, "--",
                 "sh", "-c", f"if [ -e {marker} ]; then rm -f {marker}; echo boom >&2; exit 3; fi; sleep 0.2")
    code, out, err = run_cli(capsys, argv)
    assert code == 1
    doc = json.loads((tmp_path / "s.json").read_text())
    st = {r["id"]: r for r in doc["runs"]}
    assert st["I-r0"]["status"] == "failed" and "exited with" in st["I-r0"]["error"]
    assert "boom" in st["I-r0"]["error"]
    assert st["I-r1"]["status"] == "ok"
    assert "1 failed" in out
    # --resume retries the failed run only
    code, out, err = run_cli(capsys, argv[:2] + ["--resume"] + argv[2:])
    assert code == 0 and "resuming: 1 runs done, 1 to go" in out
    doc = json.loads((tmp_path / "s.json").read_text())
    assert [r["status"] for r in doc["runs"]] == ["ok", "ok"]

    missing = study(tmp_path, "corun", "--nodes", "n[1-3]", "-n", "1", "--rotations", "1", "--settings", "I",
                    "--congestor-bin", congestor_bin, "--", "/nonexistent/app", out="m.json")
    code, out, err = run_cli(capsys, missing)
    assert code == 1
    r = json.loads((tmp_path / "m.json").read_text())["runs"][0]
    assert r["status"] == "failed" and "application" in r["error"] and "/nonexistent/app" in r["error"]

    # A congestor that dies at once, and one that gets ready (writes its
    # JSON, as network_congestor does after its setup) and dies a second
    # into the application.
    for name, script, when in (
            ("early", "echo 'no such kernel' >&2\nexit 2\n", "before the application started"),
            ("late", 'while [ "$1" != --json ]; do shift; done\necho "{}" > "$2"\nsleep 1.5\n'
                     "echo 'lost my network' >&2\nexit 4\n", "s into the application")):
        dying = tmp_path / f"congestor-{name}"
        dying.write_text("#!/bin/sh\n" + script)
        dying.chmod(0o755)
        argv = study(tmp_path, "corun", "--nodes", "n[1-3]", "-n", "1", "--rotations", "1", "--settings", "I,III",
                     "--congestor-bin", dying, "--", "sleep", "4", out=f"{name}.json")
        code, out, err = run_cli(capsys, argv)
        assert code == 1
        runs = {r["id"]: r for r in json.loads((tmp_path / f"{name}.json").read_text())["runs"]}
        assert runs["I-r0"]["status"] == "ok"
        assert runs["III-r0"]["status"] == "failed"
        assert "congestor died" in runs["III-r0"]["error"] and when in runs["III-r0"]["error"]
        assert ("lost my network" if name == "late" else "no such kernel") in runs["III-r0"]["error"]


def test_bad_input_exits_2_with_a_clear_message(tmp_path, capsys, congestor_bin):
    base = ["--congestor-bin", congestor_bin, "--", "true"]
    code, _, err = run_cli(capsys, study(tmp_path, "corun", "--nodes", "n[1-8]", "-n", "3", *base))
    assert code == 2 and "N = 3 needs a list of at least 3N = 9 nodes; the list has 8" in err
    code, _, err = run_cli(capsys, study(tmp_path, "corun", "--nodes", "n[1-9]", "-n", "3",
                                         "--settings", "I,V", *base))
    assert code == 2 and "unknown setting 'V'" in err
    code, _, err = run_cli(capsys, study(tmp_path, "corun", "-n", "1", *base))
    assert code == 2 and "give the node list one way" in err
    (tmp_path / "s.json").write_text("{}")
    code, _, err = run_cli(capsys, study(tmp_path, "corun", "--nodes", "n[1-9]", "-n", "3", "--rotations", "9",
                                         *base))
    assert code == 2 and "exists: --resume to continue" in err
    assert not list(tmp_path.glob("*.d"))


def _gated_app(tmp_path) -> list:
    """An application whose first two runs end at once and whose third
    blocks until the test creates `release`: the test decides when the
    signal comes, whatever the machine's load. Rank 0 counts the runs."""
    script = (f'[ "${{OMPI_COMM_WORLD_RANK:-0}}" = 0 ] || exit 0; c=$(cat {tmp_path}/count 2>/dev/null || echo 0); '
              f'echo $((c + 1)) > {tmp_path}/count; [ "$c" -eq 2 ] || exit 0; touch {tmp_path}/blocked; '
              f'until [ -e {tmp_path}/release ]; do sleep 0.05; done')
    return ["sh", "-c", script]


def _wait_for(path, proc, limit=180):
    deadline = time.monotonic() + limit
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


def _nothing_left(tmp_path, within=60):
    """What still runs from this study once `within` s have passed (a hang
    guard: it returns as soon as nothing is left; a job nobody ends keeps
    running far longer, the congestor until its --duration of about a day)."""
    deadline = time.monotonic() + within
    while True:
        left = subprocess.run(["pgrep", "-af", str(tmp_path)], capture_output=True, text=True).stdout
        left = "\n".join(ln for ln in left.splitlines() if "pgrep" not in ln)
        if not left.strip() or time.monotonic() > deadline:
            return left.strip()
        time.sleep(0.2)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupted_study_keeps_finished_runs_and_resumes(tmp_path, congestor_bin, sig):
    out = tmp_path / "s.json"
    argv = [sys.executable, "-m", "gpcnet", "study", "corun", "--launcher", "local", "--nodes", "n[1-6]",
            "-n", "2", "--rotations", "3", "--settings", "I,III", "--congestor-warmup", "0.5",
            "--congestor-bin", congestor_bin, "-o", str(out), "--", *_gated_app(tmp_path)]
    env = dict(os.environ, PYTHONPATH=PY)
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         preexec_fn=process_guard.ctrl_c_as_at_a_terminal)
    _wait_for(tmp_path / "blocked", p)   # runs 1 and 2 are finished and saved; run 3 is running
    p.send_signal(sig)
    text, _ = p.communicate(timeout=120)
    assert p.returncode == 128 + sig, text
    assert "finished runs kept" in text and "--resume" in text
    kept = json.loads(out.read_text())["runs"]
    assert len(kept) == 2 and all(r["status"] == "ok" for r in kept)
    assert _nothing_left(tmp_path) == ""
    (tmp_path / "release").touch()
    done = subprocess.run(argv[:5] + ["--resume"] + argv[5:], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "resuming: 2 runs done, 4 to go" in done.stdout
    runs = json.loads(out.read_text())["runs"]
    assert sorted(r["id"] for r in runs) == sorted(f"{s}-r{k}" for s in ("I", "III") for k in range(3))
    assert [r for r in runs if r["id"] == kept[0]["id"]][0]["started"] == kept[0]["started"]
    assert _nothing_left(tmp_path) == ""


@pytest.mark.parametrize("blocked_run", ["I-r0", "III-r0", "III-r1"])
def test_killed_study_leaves_no_job_running(tmp_path, congestor_bin, blocked_run):
    """SIGKILL to gpcnet while the application (and for III the congestor)
    runs: its mpiruns get SIGTERM from the kernel (parent-death signal) and
    end their ranks; the congestor would also stop at its --duration."""
    order = ["I-r0", "III-r0", "I-r1", "III-r1"]
    (tmp_path / "count").write_text(f"{2 - order.index(blocked_run)}\n")  # the gated run is `blocked_run`
    out = tmp_path / "s.json"
    argv = [sys.executable, "-m", "gpcnet", "study", "corun", "--launcher", "local", "--nodes", "n[1-6]",
            "-n", "2", "--rotations", "2", "--settings", "I,III", "--congestor-warmup", "0.2",
            "--congestor-bin", congestor_bin, "-o", str(out), "--", *_gated_app(tmp_path)]
    p = subprocess.Popen(argv, env=dict(os.environ, PYTHONPATH=PY), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    _wait_for(tmp_path / "blocked", p)
    p.kill()
    p.communicate(timeout=30)
    assert _nothing_left(tmp_path) == ""


def test_summary_normalises_to_setting_I_and_pairs_ci_app():
    runs = []
    times = {"I": [1.0, 2.0, 3.0], "II": [2.0, 2.0, 2.0], "III": [2.0, 4.0, 6.0], "IV": [3.0, 5.0, 4.0]}
    for s, ts in times.items():
        for k, t in enumerate(ts):
            runs.append({"id": f"{s}-r{k}", "setting": s, "rotation": k, "status": "ok", "wall_s": t, "fom": 10 * t,
                         "counters": {"switch_stall": {"leaf0": {"stall_ratio": t / 10}}}})
    runs.append({"id": "IV-r3", "setting": "IV", "rotation": 3, "status": "failed", "error": "x"})
    doc = {"kind": "gpcnet_study", "config": {"study": "corun", "settings": list(times)}, "runs": runs}
    s = summary.summarise(doc)
    assert s["baseline_median_s"] == 2.0
    assert s["settings"]["III"]["stats"] == {"min": 1.0, "q1": 1.5, "median": 2.0, "q3": 2.5, "max": 3.0}
    assert s["settings"]["III"]["median_fom"] == 40.0
    ci = {(c["isolated"], c["congested"]): c for c in s["ci_app"]}
    assert ci[("II", "IV")]["paired"] == [1.5, 2.5, 2.0] and ci[("II", "IV")]["median_paired"] == 2.0
    assert ci[("I", "III")]["paired"] == [2.0, 2.0, 2.0] and ci[("I", "III")]["ratio_of_medians"] == 2.0
    assert s["failed"] == [{"id": "IV-r3", "error": "x"}]
    assert s["fit"]["slope"] == pytest.approx(5.0) and s["fit"]["r"] == pytest.approx(1.0)


def test_resume_refuses_a_different_study(tmp_path, capsys, congestor_bin):
    first = study(tmp_path, "corun", "--nodes", "n[1-6]", "-n", "1", "--rotations", "1", "--settings", "I",
                  "--congestor-bin", congestor_bin, "--", "true")
    assert run_cli(capsys, first)[0] == 0
    other = study(tmp_path, "corun", "--resume", "--nodes", "n[1-6]", "-n", "2", "--rotations", "1",
                  "--settings", "I", "--congestor-bin", congestor_bin, "--", "true")
    code, _, err = run_cli(capsys, other)
    assert code == 2 and "--resume with a different n (1 there, 2 now)" in err
    same = study(tmp_path, "corun", "--resume", "--nodes", "n[1-6]", "-n", "1", "--rotations", "1",
                 "--settings", "I", "--congestor-bin", congestor_bin, "--", "true")
    code, out, _ = run_cli(capsys, same)
    assert code == 0 and "resuming: 1 runs done, 0 to go" in out
