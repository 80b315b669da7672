"""``python -m selbayes.benchmark ...``: the same as ``selbayes benchmark ...``."""

import sys

from ._cli import main

sys.exit(main())
