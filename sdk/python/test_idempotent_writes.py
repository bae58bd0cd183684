"""Writes carry an Idempotency-Key made once per logical write, and only such writes are retried
when the answer is lost; against a recording HTTP server (no statesvc needed).

    python3 -m pytest sdk/python/test_idempotent_writes.py
"""
import json, os, re, socket, sys, tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from orrery_state import StateClient, StateError  # noqa: E402
from recording_server import RecordingHandler, start_recording_server  # noqa: E402

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
DROP = "drop"


class Recorder(RecordingHandler):
    """Answers from the server's `replies` queue (default 200 {"version": 5}); DROP closes the
    connection without an answer, as a statesvc killed right after its commit would."""

    DEFAULT_REPLY = (200, {"version": 5})

    def recorded(self, body):
        return {"method": self.command, "path": self.path, "key": self.headers.get("Idempotency-Key"),
                "if_match": self.headers.get("If-Match"), "ttl": self.headers.get("X-Orrery-State-TTL"), "body": body}

    def reply(self, reply):
        if reply == DROP:
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        super().reply(reply)


@pytest.fixture
def server():
    srv = start_recording_server(Recorder)
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def client_for(server):
    d = tempfile.mkdtemp()
    path = os.path.join(d, ".orrery-state-token")
    with open(path, "w") as f:
        json.dump({"namespace": "ns1", "keyspace": "ks1", "token": "tok1"}, f)

    def make(**kw):
        kw.setdefault("retry_delay", 0.001)
        return StateClient(url="http://127.0.0.1:%d" % server.server_address[1], token_path=path, **kw)

    yield make
    os.remove(path)
    os.rmdir(d)


def keys(server):
    return [s["key"] for s in server.seen]


def test_every_write_carries_a_key_of_its_own_and_reads_none(server, client_for):
    c = client_for()
    c.set("a", 1)
    c.set("a", 1)
    c.cas("a", 5, 2)
    server.replies = [(200, {"deleted": True}), (404, {"error": "no", "code": "not_found"}), (200, {"keys": [], "cursor": ""})]
    c.delete("a")
    c.get("a")
    c.list()
    k = keys(server)
    assert all(UUID4.match(x) for x in k[:4])
    assert len(set(k[:4])) == 4
    assert k[4:] == [None, None]


def test_a_key_the_caller_passes_is_sent_as_is(server, client_for):
    c = client_for()
    c.set("a", 1, idempotency_key="order-42")
    c.cas("a", 5, 2, idempotency_key="order-43")
    server.replies = [(200, {"deleted": True})]
    assert c.delete("a", if_version=5, idempotency_key="order-44")
    assert keys(server) == ["order-42", "order-43", "order-44"]
    assert server.seen[2]["if_match"] == "5"


def test_a_dropped_connection_and_a_503_are_retried_with_the_same_key_and_body(server, client_for):
    server.replies = [DROP, (503, {"error": "db down", "code": "capability_unavailable"}), (200, {"version": 9})]
    assert client_for().set("k", {"n": 1}, ttl_seconds=30) == {"version": 9}
    assert len(server.seen) == 3
    assert len(set(keys(server))) == 1 and keys(server)[0] is not None
    assert all(s["body"] == '{"n": 1}' and s["ttl"] == "30" for s in server.seen)


def test_answers_from_statesvc_are_final(server, client_for):
    c = client_for()
    for status, code in ((412, "version_conflict"), (422, "idempotency_mismatch"), (429, "quota_keys"), (500, "internal")):
        server.seen.clear()
        server.replies = [(status, {"error": "x", "code": code})]
        with pytest.raises(StateError) as e:
            c.set("k", 1)
        assert (e.value.status, e.value.code) == (status, code)
        assert len(server.seen) == 1


def test_gives_up_after_retries_more_attempts(server, client_for):
    server.replies = [(502, {"error": "bad gateway", "code": "internal"})] * 10
    with pytest.raises(StateError) as e:
        client_for(retries=2).set("k", 1)
    assert e.value.status == 502
    assert len(server.seen) == 3
    server.seen.clear()
    server.replies = [DROP] * 10
    with pytest.raises(Exception) as e:
        client_for(retries=1).cas("k", 0, 1)
    assert not isinstance(e.value, StateError)
    assert len(server.seen) == 2 and len(set(keys(server))) == 1


def test_no_retries_or_no_idempotent_writes(server, client_for):
    server.replies = [(503, {"error": "x", "code": "capability_unavailable"})]
    with pytest.raises(StateError):
        client_for(retries=0).set("k", 1)
    assert len(server.seen) == 1 and keys(server)[0] is not None
    server.seen.clear()
    server.replies = [(503, {"error": "x", "code": "capability_unavailable"})]
    with pytest.raises(StateError):
        client_for(idempotent_writes=False).set("k", 1)
    assert keys(server) == [None]
    server.seen.clear()
    server.replies = [DROP]
    assert client_for(idempotent_writes=False).set("k", 1, idempotency_key="mine") == {"version": 5}
    assert keys(server) == ["mine", "mine"]
