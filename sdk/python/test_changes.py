"""StateClient.changes(): the change feed generator.

    python3 -m pytest -q sdk/python/test_changes.py

The scripted tests run against an HTTP server of their own (reconnect and resume, 410, errors in
the stream, a silent connection). The live tests run only when ORRERY_STATE_URL and
ORRERY_STATE_TOKEN_PATH name a statesvc (apps/statesvc/src/sdk.int.test.ts sets them).
"""
import json, os, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from orrery_state import ChangesExpiredError, StateClient, StateError  # noqa: E402


def ev(seq, key=None):
    return "id: %d\ndata: %s\n\n" % (seq, json.dumps({"seq": seq, "key": key or "k%d" % seq, "op": "set", "version": seq * 10, "value": seq}))


class Scripted(BaseHTTPRequestHandler):
    """Each connection takes the next answer of the server's script: (status, body) or a list of
    SSE frames (then the stream ends, or stays open and silent when the list ends with None)."""

    protocol_version = "HTTP/1.1"

    def do_GET(self):
        srv = self.server
        srv.paths.append(self.path)
        answer = srv.script.pop(0) if srv.script else (503, {"error": "script done", "code": "capability_unavailable"})
        if isinstance(answer, tuple):
            data = json.dumps(answer[1]).encode()
            self.send_response(answer[0])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for frame in answer:
            if frame is None:
                time.sleep(1.0)  # silent: longer than the client's idle timeout
                return
            self.wfile.write(frame.encode())
            self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def scripted():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    server.script, server.paths = [], []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    d = tempfile.mkdtemp()
    token = os.path.join(d, "token")
    with open(token, "w") as f:
        json.dump({"namespace": "ns", "keyspace": "ks", "token": "t"}, f)
    client = StateClient(url="http://127.0.0.1:%d" % server.server_address[1], token_path=token)
    yield server, client
    server.shutdown()
    server.server_close()
    os.remove(token)
    os.rmdir(d)


def take(gen, n):
    out = []
    for c in gen:
        out.append(c)
        if len(out) == n:
            break
    gen.close()
    return out


def test_yields_in_order_and_resumes_after_the_last_change(scripted):
    server, client = scripted
    server.script = [["id: 4\n\n", ev(5), ev(6)], [": keep-alive\n\n", ev(7)]]
    got = take(client.changes(prefix="k", since=4, retry_delay=0.01), 3)
    assert [c["seq"] for c in got] == [5, 6, 7]
    assert got[0] == {"seq": 5, "key": "k5", "op": "set", "version": 50, "value": 5}
    assert server.paths == ["/v1/changes?prefix=k&since=4", "/v1/changes?prefix=k&since=6"]


def test_from_now_a_position_is_where_a_reconnect_resumes_and_no_change_comes_twice(scripted):
    server, client = scripted
    server.script = [["id: 40\n\n"], ["id: 41\n\n", ev(42), ev(43)], [ev(43), ev(44)]]
    assert [c["seq"] for c in take(client.changes(retry_delay=0.01), 3)] == [42, 43, 44]
    assert server.paths == ["/v1/changes", "/v1/changes?since=40", "/v1/changes?since=43"]


def test_410_raises_changes_expired(scripted):
    server, client = scripted
    server.script = [(410, {"error": "gone: re-read the keys", "code": "changes_expired"})]
    with pytest.raises(ChangesExpiredError) as e:
        take(client.changes(since=1), 1)
    assert isinstance(e.value, StateError)
    assert (e.value.code, e.value.status, str(e.value)) == ("changes_expired", 410, "gone: re-read the keys")


def test_errors_in_the_stream(scripted):
    server, client = scripted
    server.script = [
        ["id: 0\n\n", ev(1), 'event: error\ndata: {"error":"db","code":"capability_unavailable"}\n\n'],
        [ev(2), 'event: error\ndata: {"error":"too far behind","code":"changes_expired"}\n\n'],
    ]
    seen = []
    with pytest.raises(ChangesExpiredError):
        for c in client.changes(since=0, retry_delay=0.01):
            seen.append(c["seq"])
    assert seen == [1, 2]
    server.script = [["id: 0\n\n", 'event: error\ndata: {"error":"undeclared","code":"forbidden"}\n\n']]
    with pytest.raises(StateError) as e:
        take(client.changes(since=0), 1)
    assert (e.value.code, e.value.status) == ("forbidden", 403)


def test_retries_503_and_raises_other_refusals(scripted):
    server, client = scripted
    server.script = [(503, {"error": "db", "code": "capability_unavailable"}), ["id: 0\n\n", ev(1)]]
    assert [c["seq"] for c in take(client.changes(since=0, retry_delay=0.01), 1)] == [1]
    server.script = [(429, {"error": "too many", "code": "too_many_streams"})]
    with pytest.raises(StateError) as e:
        take(client.changes(), 1)
    assert (e.value.code, e.value.status) == ("too_many_streams", 429)


def test_a_silent_connection_is_reopened(scripted):
    server, client = scripted
    server.script = [["id: 3\n\n", None], [ev(4)]]
    assert [c["seq"] for c in take(client.changes(idle_timeout=0.3, retry_delay=0.01), 1)] == [4]
    assert server.paths[1] == "/v1/changes?since=3"


live = pytest.mark.skipif(not (os.environ.get("ORRERY_STATE_URL") and os.environ.get("ORRERY_STATE_TOKEN_PATH")), reason="no live statesvc")


@live
def test_live_every_write_once_in_order():
    s = StateClient()
    start = list(s.list(prefix="feed/")["keys"])
    for k in start:
        s.delete(k)
    writes = []

    def writer():
        time.sleep(0.3)
        for i in range(20):
            writes.append(s.set("feed/%d" % (i % 5), {"i": i})["version"])
        s.delete("feed/0")

    # From now: the stream starts at the current head, so only the writer's changes come.
    gen = s.changes(prefix="feed/")
    t = threading.Thread(target=writer)
    t.start()
    got = take(gen, 21)
    t.join()
    assert [c["op"] for c in got] == ["set"] * 20 + ["delete"]
    assert [c["version"] for c in got[:20]] == writes
    assert [c["value"] for c in got[:20]] == [{"i": i} for i in range(20)]
    assert [c["seq"] for c in got] == list(range(got[0]["seq"], got[0]["seq"] + 21))
    # Resuming after the 10th sees the rest again, exactly.
    assert take(s.changes(prefix="feed/", since=got[9]["seq"]), 11) == got[10:]


@live
def test_live_a_position_ahead_of_the_feed_is_410():
    with pytest.raises(ChangesExpiredError):
        take(StateClient().changes(since=10 ** 12), 1)
