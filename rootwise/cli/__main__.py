"""``python -m rootwise.cli``: the rootwise command."""

from . import main

raise SystemExit(main())
