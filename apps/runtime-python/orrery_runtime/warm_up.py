"""Pool mode: the first function a generic worker loads and the first request it serves pay one-time
costs (importing the loader's, the SDK's and the event loop's modules, the first thread of the handler
pool, the work dir's first write). A generic worker pays them before it says it is listening, as the
Node runtime does (apps/runtime/src/warm-up.ts): it loads a throwaway module through the same loader,
sends one request to itself through the whole server, then forgets it."""
import http.client
import time

from .activate_function import ActiveFunction
from .breaker import ConcurrencyBreaker
from .function_context import FunctionContext
from .load_function import load_function
from .state_sdk import state_sdk

WARM_UP_SOURCE = """from orrery_runtime import Response

def handler(request, ctx):
    return Response(request.text() + " warm", headers={"x-warm-up": "1"})
"""


def warm_up(server, port, work_dir, log):
    started = time.monotonic()
    state_sdk()  # urllib, http.client, uuid: what ctx.state needs later
    import asyncio  # noqa: F401 (the event loop async handlers run on)

    loaded = load_function({"inline": WARM_UP_SOURCE}, None, work_dir)
    quiet = log.child({"source": "warm-up"})
    server.activate(ActiveFunction("", "", "", loaded, FunctionContext(None, "", "", "", quiet), ConcurrencyBreaker(0), 10))
    try:
        host = "127.0.0.1" if server.host in ("0.0.0.0", "") else ("::1" if server.host == "::" else server.host)
        conn = http.client.HTTPConnection(host, port, timeout=10)
        try:
            conn.request("POST", "/warm-up", body=b"ping", headers={"content-type": "text/plain", "connection": "close"})
            res = conn.getresponse()
            res.read()
            if res.status != 200:
                raise RuntimeError("warm-up request answered %d" % res.status)
        finally:
            conn.close()
    finally:
        server.forget_warm_up()
    return round((time.monotonic() - started) * 1000)
