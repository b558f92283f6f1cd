"""`python -m tui.cli`: the same as the `hmc` console script."""

import sys

from tui.cli.main import main

sys.exit(main())
