"""A degraded link named by the all-pairs matrix (network_test --all-pairs,
docs/method.md#all-pairs): one host's data link cut to 1 % of its rate
(`gpcnet testbed fault degrade`), the matrix measured across the 4 hosts,
and the report names that host and no other. The host is the one the
fault was set on; no threshold on the values beyond the outlier rule."""
import re
import shutil
import tempfile
from pathlib import Path

from conftest import binary, gpcnet, load, make_testbed

testbed = make_testbed("--hosts", "4")
SLOW = "node03"  # not rank 0's host (node01)


def test_degraded_link_is_named_by_the_matrix(testbed):
    out = tempfile.mkdtemp(prefix="gpcnet-allpairs-", dir="/var/tmp")  # seen by every host
    try:
        gpcnet("testbed", "fault", "degrade", f"d{int(SLOW[4:])}")
        try:
            # 64 KiB messages: 13 of them a shift through the degraded link
            # take under a second at 1 % of the rate.
            gpcnet("testbed", "run", "--timeout", "120", "--", binary("network_test"),
                   "--tests", "rr_two_sided_lat", "--time-limit", "0.5", "--all-pairs",
                   "--all-pairs-bytes", "65536", "--quiet", "--output-dir", out, timeout=180)
        finally:
            gpcnet("testbed", "fault", "clear", check=False)
        doc = load(f"{out}/network_test.json")
        ap = doc["all_pairs"]
        assert ap["nodes"] == ["node01", "node02", "node03", "node04"]
        slow = ap["nodes"].index(SLOW)
        print("MEASURED all-pairs MiB/s:", [[v and round(v) for v in row] for row in ap["bandwidth_mib_s"]],
              f"{ap['wall_s']:.2f} s")
        # Every pair through the degraded link is slower than every other.
        through = [ap["bandwidth_mib_s"][i][j] for i in range(4) for j in range(4)
                   if i != j and slow in (i, j)]
        others = [ap["bandwidth_mib_s"][i][j] for i in range(4) for j in range(4)
                  if i != j and slow not in (i, j)]
        assert max(through) < min(others), (through, others)
        report = Path(out) / "report.html"
        gpcnet("report", f"{out}/network_test.json", "-o", str(report))
        html = report.read_text()
        named = re.search(r"Hosts behind slow links: (.*?)\.</p>", html).group(1)
        assert named == f'<strong class="slow">{SLOW}</strong>', named
        assert f"node {SLOW}: sends and receives slowly" in html
    finally:
        shutil.rmtree(out, ignore_errors=True)
