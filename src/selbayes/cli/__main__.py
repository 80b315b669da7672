"""``python -m selbayes.cli ...``: the ``selbayes`` command line."""

import sys

from . import main

sys.exit(main())
