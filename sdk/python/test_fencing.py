"""Fencing and update() against a live statesvc (run by apps/statesvc/src/sdk-fencing.int.test.ts,
which sets ORRERY_STATE_URL and ORRERY_STATE_TOKEN_PATH):

    python3 -m pytest sdk/python/test_fencing.py
"""
import os, sys, uuid

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from orrery_state import FencedError, StateClient, UpdateConflictError  # noqa: E402

pytestmark = pytest.mark.skipif(not os.environ.get("ORRERY_STATE_URL"), reason="needs a live statesvc (ORRERY_STATE_URL)")


def fresh():
    return "py-fence/" + uuid.uuid4().hex


def test_the_worker_that_claimed_last_writes_the_other_is_fenced():
    a, b, key = StateClient(fencing=True), StateClient(fencing=True), fresh()
    a.set(key, "a1")  # a's first write claims the key
    b.set(key, "b1")  # so does b's: a is fenced from now on
    with pytest.raises(FencedError) as e:
        a.set(key, "a-late")
    assert e.value.status == 409 and e.value.key == key and e.value.fence > 0
    with pytest.raises(FencedError):
        a.delete(key)
    assert a.get(key)["value"] == "b1"
    # The key moves back to a: its next write claims again and b is the stale one.
    a.key_moved()
    a.set(key, "a2")
    with pytest.raises(FencedError):
        b.cas(key, a.get(key)["version"], "b-late")
    assert b.get(key)["value"] == "a2"


def test_unfenced_client_is_not_checked():
    a, plain, key = StateClient(fencing=True), StateClient(), fresh()
    a.set(key, 1)
    plain.set(key, 2)
    assert a.get(key)["value"] == 2


def test_update_reads_applies_and_retries_on_conflicts():
    s, other, key = StateClient(fencing=True), StateClient(), fresh()
    assert s.update(key, lambda v: (v or 0) + 1)["value"] == 1
    calls = []

    def bump(v):
        calls.append(v)
        if len(calls) == 1:
            other.set(key, 100)  # another writer gets in between the read and the CAS
        return v + 1

    out = s.update(key, bump)
    assert calls == [1, 100] and out["value"] == 101 and s.get(key) == {"value": 101, "version": out["version"]}

    def always_lose(v):
        other.set(key, v + 1000)
        return v + 1

    with pytest.raises(UpdateConflictError) as e:
        s.update(key, always_lose, retries=2)
    assert e.value.attempts == 3 and e.value.code == "version_conflict"


def test_update_is_fenced():
    a, b, key = StateClient(fencing=True), StateClient(fencing=True), fresh()
    a.update(key, lambda v: 1)
    b.claim(key)
    with pytest.raises(FencedError):
        a.update(key, lambda v: v + 1)
    assert a.get(key)["value"] == 1


def test_concurrent_updates_in_one_process_take_turns():
    import threading
    s, key = StateClient(), fresh()
    cas = []
    real_cas = s.cas

    def counting_cas(*a, **kw):
        cas.append(1)
        return real_cas(*a, **kw)

    s.cas = counting_cas
    threads = [threading.Thread(target=lambda: s.update(key, lambda v: (v or 0) + 1)) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.get(key)["value"] == 20 and len(cas) == 20 and s._update_locks == {}
