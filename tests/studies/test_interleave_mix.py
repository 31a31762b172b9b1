"""The interleaved pattern with different applications (--mix FILE): the
study's application is the first instance, the one measured; the others run
the listed applications in turn, as the poster interleaved its three."""
import json

import pytest

from gpcnet.cli import main
from gpcnet.infra.errors import GpcnetError
from gpcnet.study import interleave

TOPOLOGY = "SwitchName=l0 Nodes=a[1-4]\nSwitchName=l1 Nodes=b[1-4]\nSwitchName=top Switches=l[0-1]\n"


def test_read_mix(tmp_path):
    f = tmp_path / "mix"
    f.write_text("# the other applications\n\nlmp -in 'in file.lj'\n  build-apps/amg27 -n 20  # AMG\n")
    assert interleave.read_mix(str(f)) == [["lmp", "-in", "in file.lj"], ["build-apps/amg27", "-n", "20"]]
    f.write_text("a\n\nb 'unclosed\n")
    with pytest.raises(GpcnetError, match=r"mix:3: No closing quotation$"):
        interleave.read_mix(str(f))
    f.write_text("# only a comment\n")
    with pytest.raises(GpcnetError, match=r"mix: no command \(one application command per line\)$"):
        interleave.read_mix(str(f))


def test_instances_take_the_mix_in_turn():
    app, b, c = ["app"], ["b", "-x"], ["c"]
    assert interleave.instance_commands(app, [b, c], 5) == [app, b, c, b, c]
    assert interleave.instance_commands(app, [], 3) == [app, app, app]


def _bully(tmp_path, *args):
    (tmp_path / "topology.conf").write_text(TOPOLOGY)
    return ["study", "bully", "--launcher", "local", "--topology", str(tmp_path / "topology.conf"), "-n", "3",
            "--rotations", "1", "-o", str(tmp_path / "s.json"), *args]


def test_plan_shows_each_instance_s_command(tmp_path, capsys):
    (tmp_path / "mix").write_text("other --flag\n")
    code = main(_bully(tmp_path, "--patterns", "interleaved", "--mix", str(tmp_path / "mix"), "--plan", "--", "app"))
    out, err = capsys.readouterr()
    assert code == 0, err
    inter = {r["name"]: r for r in json.loads(out)["runs"]}["interleaved"]
    assert inter["instance_commands"] == [["app"], ["other", "--flag"]]


def test_mix_without_the_interleaved_pattern_is_one_line(tmp_path, capsys):
    (tmp_path / "mix").write_text("other\n")
    code = main(_bully(tmp_path, "--patterns", "incast", "--mix", str(tmp_path / "mix"), "--", "app"))
    err = capsys.readouterr().err
    assert code == 2 and "--mix names the other applications of the interleaved pattern" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "s.json").exists()


def test_the_other_instances_run_the_mix(tmp_path, capsys, congestor_bin):
    (tmp_path / "mix").write_text("sh -c 'echo other-application'\n")
    code = main(_bully(tmp_path, "--patterns", "interleaved", "--mix", str(tmp_path / "mix"), "--congestor-bin",
                       congestor_bin, "--fom-regex", r"fom=(\d+)", "--", "sh", "-c", "echo fom=5"))
    out, err = capsys.readouterr()
    assert code == 0, out + err
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["config"]["mix"] == [["sh", "-c", "echo other-application"]]
    r = {x["id"]: x for x in doc["runs"]}["interleaved-r0"]
    assert r["status"] == "ok" and r["fom"] == 5.0
    assert [x["command"] for x in r["instance_results"]] == [["sh", "-c", "echo fom=5"],
                                                             ["sh", "-c", "echo other-application"]]
    assert "other-application" in (tmp_path / "s.d" / "app-interleaved-r0-i1.out").read_text()
    assert "other-application" not in (tmp_path / "s.d" / "app-interleaved-r0-i0.out").read_text()
