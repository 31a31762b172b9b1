"""Allow `python3 -m gpcnet ...` where the console script is not on PATH."""

import sys

from gpcnet.cli import main

sys.exit(main())
