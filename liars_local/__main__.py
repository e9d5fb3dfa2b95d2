"""``python -m liars_local serve``: the same as the ``liars-dice`` console script."""

import sys

from liars_local.cli import main

sys.exit(main())
