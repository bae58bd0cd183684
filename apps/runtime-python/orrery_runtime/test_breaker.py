import threading
import time
import unittest

from .breaker import BreakerError, ConcurrencyBreaker


class BreakerTest(unittest.TestCase):
    def test_unlimited_never_waits(self):
        b = ConcurrencyBreaker(0)
        releases = [b.acquire() for _ in range(100)]
        self.assertEqual((b.in_flight, b.queued, b.queue_depth), (100, 0, 0))
        for r in releases:
            r()
            r()  # idempotent
        self.assertEqual(b.in_flight, 0)

    def test_limit_then_fifo_queue_then_queue_full(self):
        b = ConcurrencyBreaker(1, queue_depth=2)
        first = b.acquire()
        order = []

        def wait(name):
            release = b.acquire()
            order.append(name)
            release()

        threads = []
        for name in ("a", "b"):
            t = threading.Thread(target=wait, args=(name,))
            t.start()
            threads.append(t)
            while b.queued < len(threads):
                time.sleep(0.005)
        with self.assertRaises(BreakerError) as full:
            b.acquire()
        self.assertEqual(full.exception.code, "queue_full")
        self.assertIn("worker queue is full (1 running, 2 waiting)", str(full.exception))
        first()
        for t in threads:
            t.join(2)
        self.assertEqual(order, ["a", "b"])
        self.assertEqual((b.in_flight, b.queued), (0, 0))

    def test_default_queue_is_ten_times_the_limit(self):
        self.assertEqual(ConcurrencyBreaker(3).queue_depth, 30)

    def test_a_queued_request_gives_up_at_its_deadline_or_when_cancelled(self):
        b = ConcurrencyBreaker(1)
        held = b.acquire()
        with self.assertRaises(BreakerError) as late:
            b.acquire(deadline=time.monotonic() + 0.05)
        self.assertEqual(late.exception.code, "timeout")
        flag = threading.Event()
        threading.Timer(0.05, flag.set).start()
        with self.assertRaises(BreakerError) as gone:
            b.acquire(cancelled=flag.is_set, poll=0.01)
        self.assertEqual(gone.exception.code, "cancelled")
        self.assertEqual(b.queued, 0)
        held()
        self.assertEqual(b.in_flight, 0)
        b.acquire()()

    def test_refuses_a_bad_limit(self):
        for bad in (-1, 1.5, True):
            with self.assertRaises(ValueError):
                ConcurrencyBreaker(bad)


if __name__ == "__main__":
    unittest.main()
