import http.client
import http.server
import io
import json
import os
import re
import shutil
import tempfile
import threading
import unittest

from .activate_function import ActiveFunction
from .breaker import ConcurrencyBreaker
from .function_context import FunctionContext
from .load_function import load_function
from .replayable_invocation import bind_invocation, replay_retention_seconds
from .state_sdk import state_sdk
from .structured_log import Logger
from .worker_server import WorkerServer

ID = "fedcba9876543210fedcba9876543210"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

HANDLER = """
def handler(request, ctx):
    if ctx.state is not None:
        ctx.state.get("k")
        ctx.state.set("k", 1)
        ctx.state.update("k", lambda v: (v or 0) + 1)
    return {"invocationId": ctx.invocation_id}
"""


class _Bound:
    """A state client that only says how it was bound."""

    def __init__(self):
        self.bound = []

    def for_invocation(self, invocation_id, retention_seconds):
        self.bound.append((invocation_id, retention_seconds))
        return ("bound", invocation_id)


def ctx_with(state):
    return FunctionContext(state, "shop", "counter", "counter-00001", None, {"traceparent": "00-tp", "tracestate": None})


class BindInvocationTest(unittest.TestCase):
    def test_numbers_ctx_state_by_the_id_and_exposes_the_id(self):
        state = _Bound()
        base = ctx_with(state)
        ctx = bind_invocation(base, [ID], 30)
        self.assertEqual(state.bound, [(ID, 120)])
        self.assertEqual(ctx.invocation_id, ID)
        self.assertEqual(ctx.state, ("bound", ID))
        self.assertEqual((ctx.namespace, ctx.function, ctx.revision, ctx.trace), ("shop", "counter", "counter-00001", base.trace))
        # The shared ctx is left as it was.
        self.assertIs(base.state, state)
        self.assertIsNone(base.invocation_id)

    def test_a_stateless_function_still_gets_the_id(self):
        ctx = bind_invocation(ctx_with(None), [ID], 30)
        self.assertEqual(ctx.invocation_id, ID)
        self.assertIsNone(ctx.state)

    def test_leaves_ctx_alone_without_an_id_or_with_one_the_router_would_not_mint(self):
        for values in (None, [], [""], ["short"], [ID + "," + ID], [ID, ID], [ID + " x"], [ID + "\n"], ["ü" * 20], ["abcdefghijklmnop"], [ID.upper()], [ID + "0"], [ID[1:]]):
            state = _Bound()
            base = ctx_with(state)
            self.assertIs(bind_invocation(base, values, 30), base, values)
            self.assertEqual(state.bound, [])

    def test_retention_covers_every_run_the_router_may_make(self):
        self.assertEqual(replay_retention_seconds(300), 1200)
        self.assertEqual(replay_retention_seconds(30), 120)
        self.assertEqual(replay_retention_seconds(1), 60)
        self.assertEqual(replay_retention_seconds(20.5), 84)
        self.assertEqual(replay_retention_seconds(0), 60)


class _Statesvc(http.server.BaseHTTPRequestHandler):
    """Records each state call's Idempotency-Key and retention; a read finds nothing, a write succeeds."""

    def _answer(self):
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.server.seen.append((self.command, self.headers.get("Idempotency-Key"), self.headers.get("X-Orrery-Idempotency-Retention")))
        status, data = (404, b'{"error":"no","code":"not_found"}') if self.command == "GET" else (200, b'{"version":1}')
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_DELETE = _answer

    def log_message(self, *a):
        pass


class WorkerServerInvocationTest(unittest.TestCase):
    """A request through the worker's HTTP face: with Orrery-Invocation-Id the handler gets
    ctx.invocation_id and numbered state calls; without one (or with an ill-formed one) neither."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.statesvc = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Statesvc)
        cls.statesvc.seen = []
        threading.Thread(target=cls.statesvc.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        token_path = os.path.join(cls.dir, ".orrery-state-token")
        with open(token_path, "w") as f:
            json.dump({"namespace": "shop", "keyspace": "counts", "token": "tok"}, f)
        cls.state = state_sdk().StateClient(url="http://127.0.0.1:%d" % cls.statesvc.server_address[1], token_path=token_path, retry_delay=0.001)
        cls.log = Logger("test", stream=io.StringIO())
        cls.server = WorkerServer("127.0.0.1", 0, None, 1 << 20, cls.log)
        cls.port = cls.server.listen()["port"]

    @classmethod
    def tearDownClass(cls):
        for s in (cls.server.main, cls.statesvc):
            s.shutdown()
            s.server_close()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        self.statesvc.seen.clear()

    def activate(self, state):
        loaded = load_function({"inline": HANDLER}, None, os.path.join(self.dir, "fn-%d" % id(state)))
        ctx = FunctionContext(state, "shop", "counter", "counter-00001", self.log)
        self.server.activate(ActiveFunction("shop", "counter", "counter-00001", loaded, ctx, ConcurrencyBreaker(0), 30, keyspace="counts"))

    def request(self, *ids):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.putrequest("GET", "/")
            for value in ids:
                conn.putheader("Orrery-Invocation-Id", value)
            conn.endheaders()
            res = conn.getresponse()
            body = res.read()
            self.assertEqual(res.status, 200, body)
            return json.loads(body)["invocationId"]
        finally:
            conn.close()

    def test_the_header_numbers_the_handlers_state_calls_and_gives_it_the_id(self):
        self.activate(self.state)
        self.assertEqual(self.request(ID), ID)
        # get, set, then update()'s get and cas: four positions, each asking for four timeouts of retention.
        self.assertEqual(self.statesvc.seen, [("GET", ID + ".1", "120"), ("PUT", ID + ".2", "120"), ("GET", ID + ".3", "120"), ("POST", ID + ".4", "120")])
        # A second run of the same invocation starts from position 1 again; the shared client stays unnumbered.
        self.statesvc.seen.clear()
        self.assertEqual(self.request(ID), ID)
        self.assertEqual([k for _, k, _ in self.statesvc.seen], [ID + ".%d" % n for n in (1, 2, 3, 4)])
        self.assertIsNone(self.state.invocation_id)

    def test_without_the_header_or_with_an_ill_formed_one_nothing_is_numbered(self):
        self.activate(self.state)
        for ids in ((), ("not an id",), (ID, ID)):
            self.statesvc.seen.clear()
            self.assertIsNone(self.request(*ids), ids)
            self.assertEqual([(m, r) for m, _, r in self.statesvc.seen], [("GET", None), ("PUT", None), ("GET", None), ("POST", None)], ids)
            keys = [k for _, k, _ in self.statesvc.seen]
            self.assertEqual((keys[0], keys[2]), (None, None))
            self.assertTrue(UUID.match(keys[1]) and UUID.match(keys[3]), keys)

    def test_a_stateless_function_gets_the_id(self):
        self.activate(None)
        self.assertEqual(self.request(ID), ID)
        self.assertIsNone(self.request())
        self.assertEqual(self.statesvc.seen, [])


if __name__ == "__main__":
    unittest.main()
