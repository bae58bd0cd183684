"""The second argument of every handler (apps/runtime/src/function-context.ts for Python):
`ctx.state` (the Python SDK's StateClient bound to the function's keyspace, or None),
`ctx.namespace`, `ctx.function`, `ctx.revision`, `ctx.log` (the worker's JSON-lines log, tagged
with the function and revision) and `ctx.trace` (the caller's W3C trace context, passed on as is)."""


class FunctionContext:
    __slots__ = ("state", "namespace", "function", "revision", "log", "trace")

    def __init__(self, state, namespace, function, revision, log, trace=None):
        self.state = state
        self.namespace = namespace
        self.function = function
        self.revision = revision
        self.log = log
        self.trace = trace if trace is not None else {"traceparent": None, "tracestate": None}

    def for_request(self, traceparent, tracestate):
        """This request's context: the shared one with the request's trace headers."""
        return FunctionContext(self.state, self.namespace, self.function, self.revision, self.log, {"traceparent": traceparent, "tracestate": tracestate})
