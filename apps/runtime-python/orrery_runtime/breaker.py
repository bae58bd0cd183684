"""The queue-proxy's concurrency breaker (apps/runtime/src/breaker.ts, for threads): at most `limit`
requests run the handler at once, up to `queue_depth` more wait in FIFO order, anything beyond is
refused (queue_full). `limit` 0 means unlimited. As in Knative, the queue holds 10 x limit."""
import collections
import threading
import time


class BreakerError(Exception):
    """code: queue_full (refused at once), cancelled (the caller gave up while queued), timeout (its deadline passed while queued)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Waiter:
    __slots__ = ("event", "granted")

    def __init__(self):
        self.event = threading.Event()
        self.granted = False


class ConcurrencyBreaker:
    def __init__(self, limit, queue_depth=None):
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise ValueError("breaker limit must be an integer ≥ 0, got %r" % (limit,))
        self.limit = limit
        self.queue_depth = 10 * limit if queue_depth is None else queue_depth
        self._running = 0
        self._waiting = collections.deque()
        self._lock = threading.Lock()

    @property
    def in_flight(self):
        return self._running

    @property
    def queued(self):
        return len(self._waiting)

    def acquire(self, deadline=None, cancelled=None, poll=0.05, clock=time.monotonic):
        """Blocks until a slot is held and returns its release function (idempotent). Raises
        BreakerError('queue_full') at once when the queue is full, ('timeout') when `deadline`
        (a `clock()` value) passes while queued, ('cancelled') when `cancelled()` turns true."""
        with self._lock:
            if self.limit == 0 or self._running < self.limit:
                self._running += 1
                return self._releaser()
            if len(self._waiting) >= self.queue_depth:
                raise BreakerError("queue_full", "worker queue is full (%d running, %d waiting); retry later or scale out" % (self.limit, self.queue_depth))
            waiter = _Waiter()
            self._waiting.append(waiter)
        while True:
            remaining = poll if deadline is None else min(poll, deadline - clock())
            if remaining > 0 and waiter.event.wait(remaining):
                return self._releaser()
            gave_up = "timeout" if deadline is not None and clock() >= deadline else ("cancelled" if cancelled is not None and cancelled() else None)
            if gave_up is None:
                continue
            with self._lock:
                if waiter.granted:
                    granted = True
                else:
                    granted = False
                    self._waiting.remove(waiter)
            if granted:
                # The slot arrived as we gave up: pass it on to the next in line.
                self._releaser()()
            raise BreakerError(gave_up, "request cancelled while queued" if gave_up == "cancelled" else "request timed out while queued")

    def _releaser(self):
        done = [False]

        def release():
            with self._lock:
                if done[0]:
                    return
                done[0] = True
                # Hand the slot straight to the oldest waiter so late arrivals cannot barge in.
                if self._waiting:
                    nxt = self._waiting.popleft()
                    nxt.granted = True
                    nxt.event.set()
                else:
                    self._running -= 1

        return release
