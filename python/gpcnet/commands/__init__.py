"""The gpcnet commands, one module each with its parser (`add_parser`) and
its run function; testbed and study keep their own packages and register
their parsers the same way."""

from __future__ import annotations


def modules() -> list:
    """Every command's module, in the order `gpcnet --help` lists them."""
    # deferred (a circle at load time): study/cli.py imports gpcnet.commands.common,
    # which runs this __init__ first; at the top it would meet study/cli.py half-loaded
    from gpcnet.commands import compare, nodes, parse, plot, report, table
    from gpcnet.study import cli as study
    from gpcnet.testbed import cli as testbed
    return [report, compare, table, parse, plot, nodes, testbed, study]
