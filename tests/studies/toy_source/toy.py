"""A toy counter source (tests/studies/test_counter_sources.py copies it
into a copy of gpcnet.study.sources): its sampler reads a fixture of
readings instead of sampling anything, when GPCNET_TOY_READINGS names it."""

from __future__ import annotations

import json

NAMES = {"toy-fixture": ("toy_stalls", "toy_flits")}


def wanted(launcher, env) -> bool:
    return bool(env.get("GPCNET_TOY_READINGS"))


class FixtureSampler:
    def __init__(self, path: str):
        self.path, self.source, self.notes, self.fabric = path, None, [], None
        self.scope = {"toy/1": {"router": "toy-switch"}}
        self.ptile_scope = {"toy/2": {"router": "toy-switch", "node": "n1"}}
        self.started = False

    def start(self) -> None:
        self.started = True

    def stop(self) -> tuple:
        with open(self.path) as f:
            readings = [json.loads(line) for line in f]
        self.source = "toy-fixture"
        return {"n1": readings}, [] if self.started else ["never started"]


def sampler(launcher, nodes: list, interval: float, tag: str, duration: float) -> FixtureSampler:
    import os
    return FixtureSampler(os.environ["GPCNET_TOY_READINGS"])
