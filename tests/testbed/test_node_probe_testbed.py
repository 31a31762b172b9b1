"""A degraded link named by the per-node probe (docs/method.md#naming-a-slow-node):
one host's data link cut to 1 % of its rate (`gpcnet testbed fault degrade`),
network_test --node-probe across the 4 hosts, and `gpcnet nodes` names
that host and no other."""
import json
import shutil
import tempfile

from conftest import binary, gpcnet, load, make_testbed

testbed = make_testbed("--hosts", "4")
SLOW = "node03"  # not rank 0's host (node01)


def test_degraded_link_is_named(testbed):
    out = tempfile.mkdtemp(prefix="gpcnet-probe-", dir="/var/tmp")  # seen by every host
    try:
        gpcnet("testbed", "fault", "degrade", f"d{int(SLOW[4:])}")
        try:
            # One cycle of the round-robin schedule: 3 rounds for 4 hosts.
            gpcnet("testbed", "run", "--timeout", "120", "--", binary("network_test"),
                   "--tests", "rr_two_sided_lat", "--time-limit", "0.5", "--node-probe", "3",
                   "--quiet", "--output-dir", out, timeout=180)
        finally:
            gpcnet("testbed", "fault", "clear", check=False)
        doc = load(f"{out}/network_test.json")
        assert [n["name"] for n in doc["node_probe"]["nodes"]] == [
            "node01", "node02", "node03", "node04"]
        got = json.loads(gpcnet("nodes", "--json", f"{out}/network_test.json").stdout)
        by_name = {n["name"]: n for n in got["nodes"]}
        print("MEASURED probe:", {k: (round(v["usec"]), round(v["z"], 1)) for k, v in by_name.items()},
              f"{doc['node_probe']['wall_s']:.2f} s")
        assert got["slow"] == [SLOW], got
    finally:
        shutil.rmtree(out, ignore_errors=True)
