"""for_invocation: the state calls of one replayable invocation are numbered in call order, and a
second run with the same id, answered from the recorded outcomes, follows the first run's path
(packages/sdk/src/invocation-replay.test.ts for Python). The server below records answers by
Idempotency-Key as statesvc does; no statesvc needed.

    python3 -m unittest -v test_invocation_replay     (in sdk/python)
"""
import json, os, socket, sys, tempfile, threading, unittest, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from orrery_state import IDEMPOTENCY_RETENTION_HEADER, InvocationPositions, StateClient, StateError, is_invocation_id  # noqa: E402
from recording_server import RecordingHandler, start_recording_server  # noqa: E402

ID = "0123456789abcdef0123456789abcdef"
NOT_FOUND = (404, {"error": "no", "code": "not_found"}, None)


class RecordingStatesvc(RecordingHandler):
    """A keyspace in `entries` (key -> [value, version]) that answers a repeated Idempotency-Key from
    `recorded`, as statesvc does; `drop_next` requests are applied but answered by closing the
    connection (a lost answer), `fail_next` are answered 503 without being applied."""

    def recorded(self, body):
        return {"method": self.command, "path": self.path, "key": self.headers.get("Idempotency-Key"),
                "retention": self.headers.get(IDEMPOTENCY_RETENTION_HEADER), "body": body}

    def _apply(self, key, body):
        srv = self.server
        cur = srv.entries.get(key)
        if self.path.split("?", 1)[0] == "/v1/state":
            return (200, {"keys": sorted(srv.entries), "cursor": ""}, None)
        if self.command == "GET":
            return (200, {"value": cur[0]}, cur[1]) if cur else NOT_FOUND
        if self.command == "DELETE":
            return (200, {"deleted": True}, None) if srv.entries.pop(key, None) else NOT_FOUND
        if self.command == "PUT":
            value, ok = json.loads(body), True
        else:
            req = json.loads(body)
            value, ok = req["value"], (cur[1] if cur else 0) == req["expectVersion"]
        if not ok:
            return (412, {"error": "moved", "code": "version_conflict"}, None)
        srv.version += 1
        srv.entries[key] = [value, srv.version]
        return (200, {"version": srv.version}, srv.version)

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else ""
        srv = self.server
        with srv.lock:
            srv.seen.append(self.recorded(body))
            if srv.fail_next > 0:
                srv.fail_next -= 1
                answer = (503, {"error": "db down", "code": "capability_unavailable"}, None)
            else:
                key = urllib.parse.unquote(self.path[len("/v1/state/"):]).removesuffix("/cas")
                idem = self.headers.get("Idempotency-Key")
                answer = srv.recorded.get(idem) if idem is not None else None
                if answer is None:
                    answer = self._apply(key, body)
                    if idem is not None:
                        srv.recorded[idem] = answer
                if srv.drop_next > 0:
                    srv.drop_next -= 1
                    answer = None
        if answer is None:
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        status, payload, version = answer
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if version is not None:
            self.send_header("X-Orrery-State-Version", str(version))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = _answer


class InvocationReplayTest(unittest.TestCase):
    def setUp(self):
        self.server = start_recording_server(RecordingStatesvc)
        self.server.entries, self.server.recorded, self.server.version = {}, {}, 0
        self.server.drop_next = self.server.fail_next = 0
        self.server.lock = threading.Lock()
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, ".orrery-state-token")
        with open(self.path, "w") as f:
            json.dump({"namespace": "ns1", "keyspace": "ks1", "token": "tok1"}, f)

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        os.remove(self.path)
        os.rmdir(self.dir)

    def client(self, **kw):
        return StateClient(url="http://127.0.0.1:%d" % self.server.server_address[1], token_path=self.path, retry_delay=0.001, **kw)

    def keys(self):
        return [s["key"] for s in self.server.seen]

    def test_numbers_get_set_cas_delete_and_update_in_call_order_and_asks_for_the_retention(self):
        c = self.client().for_invocation(ID, 120)
        self.assertEqual(c.invocation_id, ID)
        self.assertIsNone(c.get("a"))
        c.set("a", 1)
        c.cas("a", 1, 2)
        self.assertEqual(c.update("a", lambda n: (n or 0) + 1)["value"], 3)  # a get and a cas: two positions
        self.assertTrue(c.delete("a"))
        self.assertEqual(self.keys(), ["%s.%d" % (ID, n) for n in range(1, 7)])
        self.assertEqual([s["method"] for s in self.server.seen], ["GET", "PUT", "POST", "GET", "POST", "DELETE"])
        self.assertTrue(all(s["retention"] == "120" for s in self.server.seen))

    def test_positions_follow_the_order_of_the_calls_across_threads(self):
        c = self.client().for_invocation(ID, 60)
        taken = []
        threads = [threading.Thread(target=lambda k=k: taken.append(c.get(k))) for k in ("x%d" % i for i in range(20))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(self.keys(), key=lambda k: int(k.rsplit(".", 1)[1])), ["%s.%d" % (ID, n) for n in range(1, 21)])

    def test_a_key_passed_in_a_call_wins_and_still_uses_up_its_position(self):
        c = self.client().for_invocation(ID, 60)
        c.cas("a", 0, 1, idempotency_key="order-7")
        c.get("a")
        self.assertEqual(self.keys(), ["order-7", ID + ".2"])
        # The caller's own key keeps the keyspace's retention (it is meant to outlive the invocation).
        self.assertIsNone(self.server.seen[0]["retention"])
        self.assertEqual(self.server.seen[1]["retention"], "60")

    def test_list_changes_nothing_and_is_not_numbered(self):
        c = self.client().for_invocation(ID, 60)
        self.server.entries["a"] = [1, 1]
        self.assertEqual(c.list(), {"keys": ["a"], "cursor": ""})
        c.get("a")
        self.assertEqual(self.keys(), [None, ID + ".1"])

    def test_a_numbered_read_whose_answer_is_lost_is_sent_again_with_the_same_key(self):
        self.server.entries["a"] = [41, 7]
        self.server.drop_next = 1
        self.assertEqual(self.client().for_invocation(ID, 60).get("a"), {"value": 41, "version": 7})
        self.assertEqual(self.keys(), [ID + ".1", ID + ".1"])
        self.server.seen.clear()
        self.server.fail_next = 2  # 503 twice: still the same key each time
        self.assertEqual(self.client().for_invocation("f" * 32, 60).get("a"), {"value": 41, "version": 7})
        self.assertEqual(self.keys(), ["f" * 32 + ".1"] * 3)
        self.assertTrue(all(s["retention"] == "60" for s in self.server.seen))

    def test_a_numbered_read_gives_up_after_retries_more_attempts(self):
        self.server.fail_next = 10
        with self.assertRaises(StateError) as e:
            self.client(retries=2).for_invocation(ID, 60).get("a")
        self.assertEqual(e.exception.status, 503)
        self.assertEqual(self.keys(), [ID + ".1"] * 3)

    def test_a_second_run_reads_what_the_first_read_and_its_increment_lands_once(self):
        self.server.entries["hits"] = [5, 1]
        self.server.version = 1
        first = self.client().for_invocation(ID, 60).update("hits", lambda n: (n or 0) + 1)
        self.assertEqual(first["value"], 6)
        # Another invocation moves the counter on before the replay (the first run's worker died before answering).
        self.client().update("hits", lambda n: (n or 0) + 1)
        replay = self.client().for_invocation(ID, 60).update("hits", lambda n: (n or 0) + 1)
        self.assertEqual(replay, first)
        self.assertEqual(self.server.entries["hits"][0], 7)

    def test_the_bound_copy_shares_the_client_and_leaves_it_unnumbered(self):
        base = self.client(fencing=True)
        bound = base.for_invocation(ID, 60)
        self.assertIs(bound._fences, base._fences)
        self.assertIs(bound._update_locks, base._update_locks)
        self.assertIsNone(base.invocation_id)
        # A token re-read by one (after a 401, or the runtime's on_change) reaches the other.
        with open(self.path, "w") as f:
            json.dump({"namespace": "ns1", "keyspace": "ks1", "token": "tok2"}, f)
        base._load_token()
        self.assertEqual(bound.headers["Authorization"], "Bearer tok2")
        # Two runs' copies count on their own.
        other = base.for_invocation("e" * 32, 60)
        bound.get("a")
        other.get("a")
        bound.get("a")
        self.assertEqual(self.keys(), [ID + ".1", "e" * 32 + ".1", ID + ".2"])

    def test_without_for_invocation_nothing_is_numbered(self):
        c = self.client()
        c.get("a")
        c.cas("a", 0, 1)
        self.assertIsNone(self.keys()[0])
        self.assertRegex(self.keys()[1], r"^[0-9a-f-]{36}$")
        self.assertIsNone(self.server.seen[1]["retention"])

    def test_refuses_an_id_that_cannot_be_a_key_and_a_retention_that_is_not_whole_seconds(self):
        self.assertTrue(is_invocation_id(ID))
        self.assertTrue(is_invocation_id("A-z_" * 4))
        for bad in ["short", "a" * 65, ID[:30] + '".', ID + " ", ID + "\n", ID + "," + ID, "ü" * 20, None, 12345678901234567]:
            self.assertFalse(is_invocation_id(bad), bad)
            with self.assertRaises(ValueError):
                InvocationPositions(bad, 60)
            with self.assertRaises(ValueError):
                self.client().for_invocation(bad, 60)
        for bad in [0, -1, 1.5, float("nan"), "60", True, None]:
            with self.assertRaises(ValueError):
                self.client().for_invocation(ID, bad)
        self.assertEqual(self.server.seen, [])


if __name__ == "__main__":
    unittest.main()
