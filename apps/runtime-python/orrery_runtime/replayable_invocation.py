"""`ctx` for one run of a replayable invocation (apps/runtime/src/replayable-invocation.ts; docs/state.md
"Replayed invocations"). The router sends Orrery-Invocation-Id only to Functions with
`spec.template.onWorkerLoss: replay`, and the same id on every run of a request; here `ctx.state` is
a copy of the shared client numbered by it, so a run after the first worker died reads what the
first read and writes once."""
import math
import re


INVOCATION_ID_HEADER = "orrery-invocation-id"
# What the router mints (packages/spec/src/wire/invocation-id.ts): 32 lower-case hex digits. The
# SDK's is_invocation_id is looser (16-64 URL-safe characters, for ids an author numbers calls by).
ROUTER_INVOCATION_ID = re.compile(r"[0-9a-f]{32}")


def replay_retention_seconds(timeout_seconds):
    """How long statesvc keeps the answers a run records: every run of the request must find the
    earlier runs' answers. The router gives each run up to the revision's timeout and tries at most
    three times by default (`--dial-retries 2`), so four timeouts, and at least a minute."""
    return max(60, 4 * math.ceil(timeout_seconds))


def bind_invocation(ctx, header_values, timeout_seconds):
    """The ctx of a request whose Orrery-Invocation-Id lines are `header_values` (a list, empty or
    None without one): unchanged without exactly one well-formed id (only the router mints them; an
    ill-formed one, or the header sent twice, gets no numbering). Stateless functions still get the id."""
    if not header_values or len(header_values) != 1:
        return ctx
    invocation_id = header_values[0]
    if not isinstance(invocation_id, str) or ROUTER_INVOCATION_ID.fullmatch(invocation_id) is None:
        return ctx
    state = None if ctx.state is None else ctx.state.for_invocation(invocation_id, replay_retention_seconds(timeout_seconds))
    return ctx.with_invocation(state, invocation_id)
