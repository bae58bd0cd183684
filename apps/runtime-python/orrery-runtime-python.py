"""orrery-runtime-python: the Python environment's worker (docs/python.md). The image's ENTRYPOINT and
the local backend run this file with `python3 -I -B`; -I leaves the script's folder off sys.path, so
it is put back here (the runtime's package sits beside this file)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from orrery_runtime.main import main  # noqa: E402 (after the path is set)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
