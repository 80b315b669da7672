"""``python -m selbayes.benchmark ...``: the same as ``selbayes benchmark ...``."""

import sys

from .cli import main

sys.exit(main())
