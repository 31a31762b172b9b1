"""Roles from the launch (issue 54, docs/method.md#roles-from-the-launch):
an MPMD launch of network_load_test gives application 0 the canaries and
application 1 the congestors, each part with its own environment; the JSON
says so and records, per role, the launch variables that select a traffic
class, as each rank saw them. Launches that break the draw's rules are
refused with one line, exit 2, nothing written."""
import subprocess

import pytest

import mpi_harness

COMMON = ["--seed", "3", "--tests", "rr_two_sided_lat", *mpi_harness.QUICK,
          *mpi_harness.QUICK_CONGESTORS]
ARGS = ["--emulate-nodes", "1", "--congestors", "a2a", *COMMON]


def app(np, env, program, args):
    """One application context of an MPMD command line, with its own
    environment: Open MPI's -x VAR=VALUE, Hydra's -env VAR VALUE."""
    part = ["-np", str(np)] if mpi_harness.MPI == "openmpi" else ["-n", str(np)]
    for k, v in env.items():
        part += ["-x", f"{k}={v}"] if mpi_harness.MPI == "openmpi" else ["-env", k, v]
    return part + [*program, *args]


def mpmd(parts, cwd, timeout=240):
    """Run `parts` (app() lists) as one MPMD launch."""
    first = mpi_harness.launcher(1)[:-2]  # the launcher and its options, without -np
    cmd = list(first)
    for i, part in enumerate(parts):
        if i:
            cmd.append(":")
        cmd += part
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=mpi_harness.mpi_env(), stdin=subprocess.DEVNULL)


def load_test():
    return [mpi_harness.built("network_load_test")]


def by_rank_sl(prog):
    """The program started through sh, UCX_IB_SL set to the rank's parity:
    values that differ within one application."""
    script = ('export UCX_IB_SL=$(( ${OMPI_COMM_WORLD_RANK:-$PMI_RANK} % 2 + 5 )); '
              'exec "$0" "$@"')
    return ["sh", "-c", script, *prog]


def test_mpmd_launch_gives_roles_and_classes(tmp_path):
    out = tmp_path / "out"
    p = mpmd([app(2, {"UCX_IB_SL": "1"}, load_test(), [*ARGS, "--output-dir", out]),
              app(3, {"UCX_IB_SL": "3", "NCCL_IB_TC": "106"}, load_test(),
                  [*ARGS, "--output-dir", out])], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "  canary share: from the launch (2 of 5 nodes)" in p.stdout.splitlines()
    doc = mpi_harness.load_json(out / "network_load_test.json")
    validate = mpi_harness.schema_validator()
    if validate:
        validate(doc)
    names = doc["placement"]["all_nodes"]
    # Emulated nodes are consecutive ranks: application 0 holds ranks 0-1.
    by_index = {n: int(n.rsplit("#", 1)[1]) for n in names}
    assert sorted(by_index[n] for n in doc["placement"]["canary_nodes"]) == [0, 1]
    assert sorted(by_index[n] for n in doc["placement"]["congestor_nodes"]) == [2, 3, 4]
    roles = doc["roles"]
    assert roles["source"] == "launch"
    assert (roles["canary_nodes"], roles["congestor_nodes"]) == (2, 3)
    assert roles["canary_share"] == pytest.approx(0.4)
    # The share that ran is the launch's: no "canary fraction 0.2" printed
    # beside it, the config records 0.4, and the published draw did not run.
    assert not [line for line in p.stdout.splitlines() if "canary fraction" in line]
    assert doc["config"]["canary_fraction"] == pytest.approx(0.4)
    assert doc["config"]["official_default"] is False
    assert "canary_fraction" in doc["config"]["non_default"]
    lv = roles["launch_variables"]
    assert "UCX_IB_SL" in lv["watched"] and "NCCL_IB_TC" in lv["watched"]
    sl = lv["canaries"]["UCX_IB_SL"]
    assert [(v["value"], v["ranks"], v["nodes"]) for v in sl["values"]] == [("1", 2, 2)]
    assert sl["unset_ranks"] == 0
    assert [(v["value"], v["ranks"]) for v in lv["congestors"]["UCX_IB_SL"]["values"]] == \
        [("3", 3)]
    # Set in one role only: the other says it had none.
    assert lv["canaries"]["NCCL_IB_TC"] == {"values": [], "unset_ranks": 2}
    assert [v["value"] for v in lv["congestors"]["NCCL_IB_TC"]["values"]] == ["106"]
    # The loaded phase ran with the launch's congestors.
    assert any(t["id"] == "loaded" for t in doc["tables"])
    assert len(doc["impact"]) == 1


def test_values_that_differ_within_a_role_are_listed_each(tmp_path):
    out = tmp_path / "out"
    p = mpmd([app(2, {}, load_test(), [*ARGS, "--output-dir", out]),
              app(4, {}, by_rank_sl(load_test()), [*ARGS, "--output-dir", out])], tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    lv = mpi_harness.load_json(out / "network_load_test.json")["roles"]["launch_variables"]
    # World ranks 2..5: 2 and 4 even (5), 3 and 5 odd (6); never averaged.
    got = {v["value"]: (v["ranks"], v["nodes"]) for v in lv["congestors"]["UCX_IB_SL"]["values"]}
    assert got == {"5": (2, 2), "6": (2, 2)}
    assert lv["canaries"]["UCX_IB_SL"] == {"values": [], "unset_ranks": 2}


def test_one_application_keeps_the_draw(harness, tmp_path):
    out = tmp_path / "out"
    p = harness.run(6, "network_load_test", *ARGS, "--output-dir", out,
                    env={"UCX_IB_TRAFFIC_CLASS": "96"})
    assert p.returncode == 0, p.stderr[-2000:]
    assert "canary share" not in p.stdout
    assert [line for line in p.stdout.splitlines() if "canary fraction" in line]
    doc = harness.load_json(out / "network_load_test.json")
    assert doc["config"]["canary_fraction"] == 0.2
    assert "canary_fraction" not in doc["config"]["non_default"]
    roles = doc["roles"]
    assert roles["source"] == "draw"
    assert set(roles["launch_variables"]) == {"watched", "all"}
    tc = roles["launch_variables"]["all"]["UCX_IB_TRAFFIC_CLASS"]
    assert [(v["value"], v["ranks"], v["nodes"]) for v in tc["values"]] == [("96", 6, 6)]


BAD = [
    # 3 + 5 ranks on nodes of 2: node 1 holds rank 2 (canary) and 3 (congestor).
    ("node-in-both", [(3, ["--emulate-nodes", "2"]), (5, ["--emulate-nodes", "2"])],
     "node ", "has ranks of both applications"),
    ("too-few-canaries", [(1, []), (2, [])], "gives 1 canary node(s)",
     "at least 2 canary nodes"),
    ("too-few-congestors", [(2, ["--congestors", "a2a,p2p_incast"]),
                            (3, ["--congestors", "a2a,p2p_incast"])],
     "3 congestor node(s)", "2 per congestor"),
    ("canary-fraction", [(2, ["--canary-fraction", "0.5"]), (2, ["--canary-fraction", "0.5"])],
     "--canary-fraction and an MPMD launch", "drop --canary-fraction"),
    ("colocated", [(2, ["--placement", "colocated"]), (2, ["--placement", "colocated"])],
     "--placement colocated mixes", "drop --placement colocated"),
    ("different-options", [(2, []), (2, ["-v"])], "different programs or options",
     "same program and options"),
    ("three-applications", [(2, []), (2, []), (2, [])], "the launch has 3 applications",
     "application 1 congestors"),
]


@pytest.mark.parametrize("parts,what,fix", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_launch_is_refused_in_one_line(tmp_path, parts, what, fix):
    out = tmp_path / "out"
    apps = []
    for np, extra in parts:
        args = list(COMMON)
        if "--emulate-nodes" not in extra:
            args += ["--emulate-nodes", "1"]
        if "--congestors" not in extra:
            args += ["--congestors", "a2a"]
        apps.append(app(np, {}, load_test(), [*args, *extra, "--output-dir", out]))
    p = mpmd(apps, tmp_path, timeout=120)
    assert p.returncode == 2, p.stderr[-2000:]
    ours = [line for line in p.stderr.splitlines() if line.startswith("network_load_test:")]
    assert len(ours) == 1, p.stderr
    assert what in ours[0] and fix in ours[0], ours[0]
    assert "Traceback" not in p.stderr
    assert not out.exists(), sorted(out.iterdir())  # nothing created



def test_congestor_job_records_its_class(harness, tmp_path):
    """A congestor job beside a canary job of its own (docs/traffic_classes.md
    #separate-jobs): its JSON says which class its launch chose."""
    out = tmp_path / "out"
    p = harness.run(4, "network_congestor", "--emulate-nodes", "1", "--congestors", "a2a",
                    "--duration", "0.3", "--congestor-iterations", "4", "-q",
                    "--output-dir", out, env={"NCCL_IB_SL": "4"})
    assert p.returncode == 0, p.stderr[-2000:]
    doc = harness.load_json(out / "network_congestor.json")
    validate = harness.schema_validator()
    if validate:
        validate(doc)
    roles = doc["roles"]
    assert roles["source"] == "congestor_job"
    assert set(roles["launch_variables"]) == {"watched", "congestors"}
    sl = roles["launch_variables"]["congestors"]["NCCL_IB_SL"]
    assert [(v["value"], v["ranks"], v["nodes"]) for v in sl["values"]] == [("4", 4, 4)]
