"""The launch variables every rank records (launch_env_names in
src/suite/launch_env.c) and the table of docs/traffic_classes.md that says
what reads each and where that is documented: the same names, so that
neither is added without the other."""

import re

from conftest import REPO


def source_names() -> list:
    text = (REPO / "src/suite/launch_env.c").read_text()
    body = text.split("launch_env_names[] = {", 1)[1].split("NULL", 1)[0]
    return re.findall(r'^\s*"([A-Za-z0-9_]+)",', body, re.M)


def documented_names() -> list:
    doc = (REPO / "docs/traffic_classes.md").read_text()
    section = doc.split("## The launch variables recorded", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([A-Za-z0-9_]+)` \|", section, re.M)


def test_every_recorded_variable_is_documented_and_no_other():
    names = source_names()
    assert len(names) >= 10 and "GPCNET_TRAFFIC_CLASS" in names and "UCX_IB_SL" in names
    assert sorted(documented_names()) == sorted(names)
