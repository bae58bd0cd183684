"""What a worker needs to serve one revision, the same at start (deploy) and at specialize (pool), as
apps/runtime/src/activate-function.ts: the template's env and the platform's variables are set, the
state token file written and its variables exported (before the function's module runs, so top-level
code sees them), the code loaded, the context and the breaker built. Raises LoadError."""
import os
import time

from .breaker import ConcurrencyBreaker
from .function_context import FunctionContext
from .load_function import load_function
from .state_sdk import state_sdk
from .state_token_file import write_state_token_file


class ActiveFunction:
    def __init__(self, namespace, function, revision, loaded, ctx, breaker, timeout_seconds, keyspace=None):
        self.namespace, self.function, self.revision = namespace, function, revision
        self.loaded = loaded
        self.ctx = ctx
        self.breaker = breaker
        # Time to the response head, counted from arrival (queueing included); 0 = none.
        self.timeout_seconds = timeout_seconds
        self.keyspace = keyspace


def activate_function(a, work_dir, log, max_source_bytes=None, env=None):
    """`a`: {namespace, function, revision, source, entrypoint?, containerConcurrency, timeoutSeconds,
    state?: {url, credentials: {namespace, keyspace, token}, fencing?}, env?}."""
    env = os.environ if env is None else env
    flog = log.child({"namespace": a["namespace"], "function": a["function"], "revision": a["revision"]})
    # Never ORRERY_*: the platform's variables below are the runtime's to set.
    for name, value in (a.get("env") or {}).items():
        if not name.startswith("ORRERY_"):
            env[name] = value
    env["ORRERY_NAMESPACE"] = a["namespace"]
    env["ORRERY_FUNCTION"] = a["function"]
    env["ORRERY_REVISION"] = a["revision"]
    state = None
    st = a.get("state")
    if st:
        token_path = write_state_token_file(work_dir, st["credentials"])
        env["ORRERY_STATE_URL"] = st["url"]
        env["ORRERY_STATE_TOKEN_PATH"] = token_path
        # The file is the one way to the token; keep it out of the handler's environment.
        env.pop("ORRERY_STATE_TOKEN", None)
        state = state_sdk().StateClient(url=st["url"], token_path=token_path, fencing=st.get("fencing") is True)
        flog.info("state token file written", {"path": token_path, "keyspace": st["credentials"]["keyspace"], "fencing": st.get("fencing") is True})
    started = time.monotonic()
    kwargs = {} if max_source_bytes is None else {"max_bytes": max_source_bytes}
    loaded = load_function(a["source"], a.get("entrypoint"), work_dir, **kwargs)
    flog.info("function loaded", {"module": loaded.module_path, "entrypoint": a.get("entrypoint") or "default", "ms": round((time.monotonic() - started) * 1000)})
    ctx = FunctionContext(state, a["namespace"], a["function"], a["revision"], flog.child({"source": "function"}))
    return ActiveFunction(
        a["namespace"], a["function"], a["revision"], loaded, ctx,
        ConcurrencyBreaker(a["containerConcurrency"]), a["timeoutSeconds"],
        keyspace=st["credentials"]["keyspace"] if st else None,
    )
