"""The second argument of every handler (apps/runtime/src/function-context.ts for Python):
`ctx.state` (the Python SDK's StateClient bound to the function's keyspace, or None),
`ctx.namespace`, `ctx.function`, `ctx.revision`, `ctx.log` (the worker's JSON-lines log, tagged
with the function and revision), `ctx.trace` (the caller's W3C trace context, passed on as is) and
`ctx.invocation_id` (the request's Orrery-Invocation-Id when its Function replays after worker loss,
the same on every run of the request; None otherwise)."""


class FunctionContext:
    __slots__ = ("state", "namespace", "function", "revision", "log", "trace", "invocation_id")

    def __init__(self, state, namespace, function, revision, log, trace=None, invocation_id=None):
        self.state = state
        self.namespace = namespace
        self.function = function
        self.revision = revision
        self.log = log
        self.trace = trace if trace is not None else {"traceparent": None, "tracestate": None}
        self.invocation_id = invocation_id

    def for_request(self, traceparent, tracestate):
        """This request's context: the shared one with the request's trace headers."""
        return FunctionContext(self.state, self.namespace, self.function, self.revision, self.log, {"traceparent": traceparent, "tracestate": tracestate}, self.invocation_id)

    def with_invocation(self, state, invocation_id):
        """This context for one run of a replayable invocation: `state` numbered by `invocation_id`
        (replayable_invocation.bind_invocation)."""
        return FunctionContext(state, self.namespace, self.function, self.revision, self.log, self.trace, invocation_id)
