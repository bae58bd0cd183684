"""Whether the worker takes a WebSocket handshake at all, decided before it queues for a concurrency
slot: the Node runtime's answers (apps/runtime/src/websocket/handshake-refusal.ts), the same an HTTP
request gets where the case is the same (draining, not specialized), one code per reason otherwise. Pure."""


def _protocols(upgrade):
    return [t.strip().lower() for t in (upgrade or "").split(",") if t.strip()]


def refuse_handshake(runtime_path, draining, specialized, has_websocket_handler, function_name, upgrade):
    """None: go on (queue for a slot, then the handshake); else (status, {"error", "code"}) to answer and close."""
    if runtime_path:
        return 404, {"error": "the runtime routes (/healthz, /readyz, /v1/*) do not take WebSocket connections", "code": "not_found"}
    if draining:
        return 503, {"error": "worker is draining; send the request to another worker", "code": "draining"}
    if not specialized:
        return 503, {"error": "no function loaded yet: this pool worker is waiting for POST /v1/specialize", "code": "not_specialized"}
    asked = _protocols(upgrade)
    if asked != ["websocket"]:
        return 400, {"error": "the worker switches connections only to websocket (this request asked for %s)" % (", ".join(asked) or "nothing"), "code": "upgrade_not_supported"}
    if not has_websocket_handler:
        return 400, {"error": "function %s does not take WebSocket connections: its module exports no websocket handler" % function_name, "code": "websocket_not_supported"}
    return None
