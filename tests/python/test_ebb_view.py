"""The report's effective bisection bandwidth (gpcnet/report/ebb_view.py,
docs/method.md#effective-bisection-bandwidth): the eBB, the histogram of
the matchings' means and a row per matching, as fractions of the link rate
when the run had one and in MiB/s per pair when not; nothing without
--ebb."""
from conftest import read

MIB = float(1 << 20)


def with_ebb(means, link_gbit=None):
    """network_run.json with an ebb member of these matching means (MiB/s),
    two pairs each at mean -+ 1."""
    doc = read("network_run.json")
    per = [{"mean_mib_s": m, "min_mib_s": m - 1, "max_mib_s": m + 1,
            "pairs": [{"a": 0, "b": 1, "mib_s": m - 1}, {"a": 2, "b": 3, "mib_s": m + 1}]}
           for m in means]
    mean = sum(means) / len(means)
    doc["ebb"] = {"matchings": len(means), "nodes": 4, "bytes": 1048576, "seed": 1000,
                  "wall_s": 0.5, "link_rate_gbit": link_gbit,
                  "node_names": ["n0", "n1", "n2", "n3"], "per_matching": per,
                  "mean_mib_s": mean, "min_mib_s": min(means), "max_mib_s": max(means),
                  "fraction": mean / (link_gbit * 1e9 / 8 / MIB) if link_gbit else None}
    return doc


def section(cli, write_json, tmp_path, doc):
    out = tmp_path / "r.html"
    assert cli("report", write_json(doc), "-o", out)[0] == 0
    html = out.read_text()
    s = html[html.index('<section id="ebb">'):]
    return s[:s.index("</section>")]


def test_fractions_of_the_link_rate(cli, write_json, tmp_path):
    link = 100 * 8 * MIB / 1e9  # a link rate of exactly 100 MiB/s
    s = section(cli, write_json, tmp_path, with_ebb([50.0, 75.0, 100.0], link))
    assert "eBB: <strong>0.750</strong> (fraction of the link rate)" in s
    assert "3 random perfect matchings of the 4 nodes (seed 1000)" in s
    assert s.count("<tr>") == 4  # header and 3 matchings
    assert '<td>1</td><td class="num">0.500</td><td class="num">0.490</td><td class="num">0.510</td>' in s
    assert 'id="fig-ebb"' in s and "<svg" in s


def test_mib_s_without_a_link_rate(cli, write_json, tmp_path):
    s = section(cli, write_json, tmp_path, with_ebb([100.0, 300.0]))
    assert "eBB: <strong>200.0</strong> (MiB/s per pair)" in s
    assert '<td>2</td><td class="num">300.0</td><td class="num">299.0</td><td class="num">301.0</td>' in s


def test_no_section_without_ebb(cli, write_json, tmp_path):
    out = tmp_path / "p.html"
    assert cli("report", write_json(read("network_run.json"), "plain.json"), "-o", out)[0] == 0
    assert 'id="ebb"' not in out.read_text()


EBB_TABLE = """
+------------------------------------------------------------------------------+
|              Effective Bisection Bandwidth (1048576 B each way)              |
+---------------------------------+--------------+--------------+--------------+
|                  MiB/s per pair |         Mean |          Min |          Max |
+---------------------------------+--------------+--------------+--------------+
|                      Matching 1 |          0.8 |          0.7 |          0.9 |
+---------------------------------+--------------+--------------+--------------+
|     eBB (mean of the matchings) |          0.8 |          0.8 |          0.8 |
+---------------------------------+--------------+--------------+--------------+
|                 eBB / link rate |        0.507 |        0.507 |        0.507 |
+---------------------------------+--------------+--------------+--------------+
"""


def test_parse_reads_the_published_tables_beside_an_ebb_table(cli, tmp_path):
    # The text lacks the pairs and the seed of the ebb member: parse keeps
    # the published tables as without it and writes no ebb member
    # (docs/gpcnet-tool.md, the report's section 10).
    from conftest import REAL
    plain = (REAL / "network_test.txt").read_text()
    (tmp_path / "with.txt").write_text(plain + EBB_TABLE)
    (tmp_path / "plain.txt").write_text(plain)
    code_a, with_ebb, _ = cli("parse", tmp_path / "with.txt")
    code_b, without, _ = cli("parse", tmp_path / "plain.txt")
    assert code_a == code_b == 0
    assert with_ebb == without and '"ebb"' not in with_ebb
