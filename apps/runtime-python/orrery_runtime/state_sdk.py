"""The Python SDK (sdk/python/orrery_state.py) is the state client functions get as ctx.state: imported
from where the repository (and the image, which keeps the same layout under /app) has it, never
copied, so function code that imports orrery_state (for StateError, FencedError) gets the same module."""
import os
import sys

SDK_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "sdk", "python"))


def state_sdk():
    if SDK_DIR not in sys.path:
        sys.path.append(SDK_DIR)
    import orrery_state

    return orrery_state
