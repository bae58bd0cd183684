import unittest

from .concurrency_meter import ConcurrencyMeter


class Clock:
    def __init__(self, t):
        self.t = t

    def __call__(self):
        return self.t


class MeterTest(unittest.TestCase):
    def test_time_weighted_average_and_count_per_aligned_window(self):
        clock = Clock(10_000)
        m = ConcurrencyMeter(clock)
        m.arrive()  # 1 from 0 ms
        clock.t = 10_500
        m.arrive()  # 2 from 500 ms
        clock.t = 10_750
        m.depart()  # 1 from 750 ms
        clock.t = 11_000
        w = m.last_window()
        self.assertEqual((w["start"], w["end"], w["requestCount"]), (10_000, 11_000, 2))
        self.assertAlmostEqual(w["averageConcurrency"], (500 * 1 + 250 * 2 + 250 * 1) / 1000)
        self.assertEqual((m.current, m.total_requests), (1, 2))

    def test_idle_windows_report_the_level_that_held(self):
        clock = Clock(0)
        m = ConcurrencyMeter(clock)
        m.arrive()
        clock.t = 5_300
        w = m.last_window()
        self.assertEqual((w["start"], w["end"], w["averageConcurrency"], w["requestCount"]), (4_000, 5_000, 1, 0))

    def test_before_any_window_closed_it_reports_an_empty_one(self):
        m = ConcurrencyMeter(Clock(2_500))
        self.assertEqual(m.last_window(), {"start": 1_000, "end": 2_000, "averageConcurrency": 0, "requestCount": 0})


if __name__ == "__main__":
    unittest.main()
