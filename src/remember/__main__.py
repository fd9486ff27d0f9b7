"""``python -m remember``: the same as the ``remember`` command."""

import sys

from remember.cli import main

sys.exit(main())
