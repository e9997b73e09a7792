"""``python -m iceberg_doris.cli``: the ``iceberg-doris`` command."""

import sys

from iceberg_doris.cli.command import main

sys.exit(main())
