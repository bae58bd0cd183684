"""The Python function runtime of Orrery (docs/python.md). Function code imports what it returns from
here: `from orrery_runtime import Response`."""
from .http_messages import Headers, Request, Response

__all__ = ["Headers", "Request", "Response"]
