"""Reading the file of `gpcnet testbed run --counters FILE
--counters-interval SEC` for `gpcnet plot --kind timeline --counters`.

Read like every JSON input (gpcnet.results_json.load.read_json: bounded size, /dev/zero
refused at once, not too deep, no NaN or overflow), then checked for the
shape the timeline figure uses, so that a file of the wrong shape is one
line naming the field, never a traceback later in the drawing:

    {"series": {"start_epoch_s": number,
                "samples": [{"t": number, "dt": number,
                             "ports": {KEY: {"bytes": number >= 0, ...}}}, ...]},
     "after": {"ports": {KEY: {"tier": string, ...}}}}        (optional)
"""

from __future__ import annotations

from gpcnet.infra.errors import GpcnetError
from gpcnet.results_json.load import read_json
from gpcnet.text import number_text, text_safe

WHAT = "testbed counters"


class _Checker:
    def __init__(self, path):
        self.path = text_safe.path(path)

    def fail(self, where: str, problem: str):
        raise GpcnetError(f"{self.path}: {where}: {problem}")

    def obj(self, value, where: str) -> dict:
        if not isinstance(value, dict):
            self.fail(where, f"expected an object, not {text_safe.quote(value)}")
        return value

    def number(self, value, where: str, minimum=None) -> None:
        x = number_text.as_float(value)
        if x is None:
            self.fail(where, f"expected a number, not {text_safe.quote(value)}")
        if minimum is not None and x < minimum:
            self.fail(where, f"{text_safe.quote(value)} is below {minimum:g}")


def _key(key: str) -> str:
    return f"[{text_safe.quote(key, 60)}]"


def check(doc, path) -> dict:
    """`doc` when it has the shape above, else a GpcnetError naming the field."""
    c = _Checker(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("series"), dict) \
            or not doc["series"].get("samples"):
        c.fail("$.series.samples", "no counter series (written by gpcnet testbed run --counters FILE "
                                   "--counters-interval SEC?)")
    series = doc["series"]
    c.number(series.get("start_epoch_s"), "$.series.start_epoch_s")
    if not isinstance(series["samples"], list):
        c.fail("$.series.samples", f"expected a list, not {text_safe.quote(series['samples'])}")
    for i, sample in enumerate(series["samples"]):
        where = f"$.series.samples[{i}]"
        c.obj(sample, where)
        c.number(sample.get("t"), f"{where}.t")
        c.number(sample.get("dt"), f"{where}.dt")
        for key, port in c.obj(sample.get("ports"), f"{where}.ports").items():
            c.obj(port, f"{where}.ports{_key(key)}")
            c.number(port.get("bytes"), f"{where}.ports{_key(key)}.bytes", minimum=0)
    after = doc.get("after")
    if after is not None:
        for key, port in c.obj(c.obj(after, "$.after").get("ports", {}), "$.after.ports").items():
            tier = c.obj(port, f"$.after.ports{_key(key)}").get("tier")
            if tier is not None and not isinstance(tier, str):
                c.fail(f"$.after.ports{_key(key)}.tier", f"expected a string, not {text_safe.quote(tier)}")
    return doc


def read(path) -> dict:
    return check(read_json(path, WHAT), path)
