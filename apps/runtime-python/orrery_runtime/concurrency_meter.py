"""Time-weighted average concurrency and request count per fixed window (1 s), the numbers Knative's
queue-proxy reports to the autoscaler (apps/runtime/src/concurrency-meter.ts, same arithmetic).
Windows are aligned to multiples of the window length; the clock (milliseconds) is injected."""
import threading
import time


def _now_ms():
    return time.time() * 1000.0


class ConcurrencyMeter:
    def __init__(self, now=_now_ms, window_ms=1000):
        self._now = now
        self.window_ms = window_ms
        t = now()
        self._level = 0
        self._window_start = (t // window_ms) * window_ms
        self._last_change = t
        self._area = 0.0
        self._count = 0
        self._total = 0
        self._completed = {"start": self._window_start - window_ms, "end": self._window_start, "averageConcurrency": 0, "requestCount": 0}
        self._lock = threading.Lock()

    def arrive(self):
        with self._lock:
            self._advance()
            self._count += 1
            self._total += 1
            self._level += 1

    def depart(self):
        with self._lock:
            self._advance()
            if self._level > 0:
                self._level -= 1

    @property
    def current(self):
        return self._level

    @property
    def total_requests(self):
        return self._total

    def last_window(self):
        """The most recent complete window: {start, end (clock ms), averageConcurrency, requestCount}."""
        with self._lock:
            self._advance()
            return dict(self._completed)

    def _advance(self):
        t = self._now()
        end = self._window_start + self.window_ms
        if t < end:
            self._area += self._level * (t - self._last_change)
            self._last_change = t
            return
        # Close the open window; if whole windows passed with no event, the level held all along.
        self._area += self._level * (end - self._last_change)
        missed = int((t - end) // self.window_ms)
        if missed == 0:
            self._completed = {"start": self._window_start, "end": end, "averageConcurrency": self._area / self.window_ms, "requestCount": self._count}
        else:
            self._completed = {"start": end + (missed - 1) * self.window_ms, "end": end + missed * self.window_ms, "averageConcurrency": self._level, "requestCount": 0}
        self._window_start = end + missed * self.window_ms
        self._area = self._level * (t - self._window_start)
        self._last_change = t
        self._count = 0
