"""Command line: gpcnet report | compare | table | parse | plot | nodes | testbed | study.

Each command lives in its own module (gpcnet.commands). Every expected
failure (missing file, bad JSON, wrong schema, unparseable text,
unwritable output) is a GpcnetError: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys

from gpcnet import __version__, commands
from gpcnet.commands.common import EXIT_ERROR
from gpcnet.errors import GpcnetError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpcnet",
        description="Analyse GPCNeT results (JSON written by network_test / network_load_test, "
                    "or their text output via `gpcnet parse`).",
        epilog="Exit status: 0 ok, 1 regression found by compare --fail-if-worse, 2 error.")
    parser.add_argument("--version", action="version", version=f"gpcnet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in commands.modules():
        module.add_parser(sub)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except GpcnetError as e:
        print(f"gpcnet {args.command}: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in gpcnet, not in the input
        if os.environ.get("GPCNET_DEBUG"):
            raise
        print(f"gpcnet {args.command}: internal error: {type(e).__name__}: {e} "
              "(set GPCNET_DEBUG=1 for a traceback and please report it)", file=sys.stderr)
        return EXIT_ERROR
