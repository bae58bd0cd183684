"""Test support: an HTTP server on a free local port that records every request and answers from a
queue of scripted replies, so the SDK's tests run without a statesvc."""
import json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RecordingHandler(BaseHTTPRequestHandler):
    """Appends `recorded(body)` to the server's `seen`, then answers the next of its `replies`
    ((status, JSON payload)), or DEFAULT_REPLY when none is left. Subclasses say what they record
    and may override `reply` for replies that are not an answer."""

    DEFAULT_REPLY = (200, {"version": 1})

    def recorded(self, body):
        return {"method": self.command, "path": self.path, "body": body}

    def reply(self, reply):
        status, payload = reply
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        self.server.seen.append(self.recorded(body))
        self.reply(self.server.replies.pop(0) if self.server.replies else self.DEFAULT_REPLY)

    do_GET = do_PUT = do_POST = do_DELETE = _answer

    def log_message(self, *args):
        pass


def start_recording_server(handler):
    """Serves `handler` on 127.0.0.1 in a daemon thread; `seen` and `replies` start empty. Stop it
    with shutdown() and server_close()."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.seen, srv.replies = [], []
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv
