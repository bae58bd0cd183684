"""Turns the one admitted specialize call into an activation (apps/runtime/src/specialize.ts
createSpecializer). The single-use nonce gate in front of it lets one call through, so a worker is
specialized at most once; a second activation is refused here too (defence in depth). A failed load
leaves the worker spent (`on_failed`): the executor discards it, never reuses it."""
import threading
import time

from .load_error import LoadError
from .specialize_request import parse_specialize_request


def create_specializer(activate, default_state_url=None, on_failed=None):
    """`activate(assignment)` returns the worker's address "host:port" or raises; the result answers
    POST /v1/specialize as (status, body)."""
    lock = threading.Lock()
    current = [None]

    def specialize(body):
        with lock:
            if current[0]:
                return 409, {"error": "worker is already specialized for %s; use another pool worker" % current[0], "code": "already_specialized"}
            assignment, problem = parse_specialize_request(body, default_state_url)
            if problem:
                if on_failed:
                    on_failed()
                return 400, {"error": problem, "code": "bad_request"}
            a = assignment
            current[0] = "%s/%s/%s" % (a["namespace"], a["function"], a["revision"])
        started = time.monotonic()
        try:
            address = activate(a)
        except LoadError as e:
            if on_failed:
                on_failed()
            return 422, {"error": e.message, "code": e.code}
        except Exception as e:  # noqa: BLE001
            if on_failed:
                on_failed()
            return 500, {"error": "specialize failed: %s" % e, "code": "internal"}
        return 200, {
            "specialized": True,
            "namespace": a["namespace"],
            "function": a["function"],
            "revision": a["revision"],
            "address": address,
            "loadMs": round((time.monotonic() - started) * 1000),
        }

    return specialize
