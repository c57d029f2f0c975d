"""``python -m soadyn.cli``: the ``soadyn`` command."""

from . import main

if __name__ == "__main__":
    main()
