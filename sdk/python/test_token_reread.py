"""The token file is re-read once after a 401, against a real HTTP server (no statesvc needed).

    python3 -m unittest sdk/python/test_token_reread.py
"""
import json, os, sys, tempfile, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from orrery_state import StateClient, StateError  # noqa: E402
from recording_server import RecordingHandler, start_recording_server  # noqa: E402


class Recorder(RecordingHandler):
    """Answers from the test's `replies` queue (default 200 {"version": 1}) and records each request;
    the server's `on_request`, when set, runs before each answer with the number of requests so far."""

    def recorded(self, body):
        return {"method": self.command, "path": self.path, "auth": self.headers.get("Authorization"),
                "ns": self.headers.get("X-Orrery-State-Namespace"),
                "ks": self.headers.get("X-Orrery-State-Keyspace"), "body": body}

    def reply(self, reply):
        if self.server.on_request:
            self.server.on_request(len(self.server.seen))
        super().reply(reply)


UNAUTHORIZED = (401, {"error": "send Authorization: Bearer <token>", "code": "unauthorized"})


class TokenRereadTest(unittest.TestCase):
    def setUp(self):
        self.server = start_recording_server(Recorder)
        self.server.on_request = None
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, ".orrery-state-token")
        self.write_token("ns1", "ks1", "old-token")
        self.client = StateClient(url="http://127.0.0.1:%d/" % self.server.server_address[1], token_path=self.path)

    def tearDown(self):
        self.server.shutdown()
        self.server.server_close()
        os.remove(self.path)
        os.rmdir(self.dir)

    def write_token(self, ns, ks, token):
        # As the runtime does: a new file renamed over the old one.
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"namespace": ns, "keyspace": ks, "token": token}, f)
        os.replace(tmp, self.path)

    def test_401_rereads_the_file_and_retries_once_with_the_new_token(self):
        self.server.replies = [UNAUTHORIZED]
        # The worker got a new token while the first request was on its way.
        self.server.on_request = lambda n: n == 1 and self.write_token("ns1", "ks1", "new-token")
        self.assertEqual(self.client.set("k", {"a": 1}, if_version=3), {"version": 1})
        seen = self.server.seen
        self.assertEqual([(s["method"], s["path"], s["auth"]) for s in seen],
                         [("PUT", "/v1/state/k", "Bearer old-token"), ("PUT", "/v1/state/k", "Bearer new-token")])
        self.assertEqual(seen[1]["body"], '{"a": 1}')  # the body is sent again
        # The new token stays in use: the next call needs no retry.
        self.client.list()
        self.assertEqual(seen[2]["auth"], "Bearer new-token")
        self.assertEqual(len(seen), 3)

    def test_the_reread_also_picks_up_new_claims(self):
        self.server.replies = [UNAUTHORIZED]
        self.server.on_request = lambda n: n == 1 and self.write_token("ns2", "ks2", "t2")
        self.client.delete("k")
        self.assertEqual([(s["ns"], s["ks"], s["auth"]) for s in self.server.seen],
                         [("ns1", "ks1", "Bearer old-token"), ("ns2", "ks2", "Bearer t2")])

    def test_a_second_401_is_raised(self):
        self.server.replies = [UNAUTHORIZED, UNAUTHORIZED, UNAUTHORIZED]
        with self.assertRaises(StateError) as e:
            self.client.cas("k", 0, 1)
        self.assertEqual((e.exception.code, e.exception.status), ("unauthorized", 401))
        self.assertEqual(len(self.server.seen), 2)  # one retry, not a loop

    def test_each_call_gets_its_own_single_retry(self):
        self.server.replies = [UNAUTHORIZED, (200, {"version": 5}), UNAUTHORIZED, (200, {"version": 6})]
        self.assertEqual(self.client.set("a", 1), {"version": 5})
        self.assertEqual(self.client.set("b", 2), {"version": 6})
        self.assertEqual(len(self.server.seen), 4)

    def test_other_errors_are_not_retried(self):
        self.server.replies = [(403, {"error": "not granted", "code": "forbidden"})]
        with self.assertRaises(StateError) as e:
            self.client.set("k", 1)
        self.assertEqual((e.exception.code, e.exception.status), ("forbidden", 403))
        self.assertEqual(len(self.server.seen), 1)


if __name__ == "__main__":
    unittest.main()
