"""The Python function runtime of Orrery (docs/python.md). Function code imports what it returns from
here: `from orrery_runtime import Response` (and WebSocketClosed, which send() raises on a closed socket)."""
from .http_messages import Headers, Request, Response
from .websocket_session import WebSocket, WebSocketClosed

__all__ = ["Headers", "Request", "Response", "WebSocket", "WebSocketClosed"]
