"""Runs against a live statesvc: ORRERY_STATE_URL and ORRERY_STATE_TOKEN_PATH must be set.

    python3 -m unittest sdk/python/test_orrery_state.py
"""
import os, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from orrery_state import StateClient, StateError  # noqa: E402


class LiveStateTest(unittest.TestCase):
    def setUp(self):
        self.s = StateClient()

    def test_round_trip(self):
        self.assertIsNone(self.s.get("py/missing"))
        v1 = self.s.set("py/a", {"n": 1, "s": "é"})["version"]
        self.assertEqual(self.s.get("py/a"), {"value": {"n": 1, "s": "é"}, "version": v1})
        v2 = self.s.cas("py/a", v1, [1, 2])["version"]
        self.assertGreater(v2, v1)
        with self.assertRaises(StateError) as e:
            self.s.cas("py/a", v1, 3)
        self.assertEqual((e.exception.code, e.exception.status), ("version_conflict", 412))
        with self.assertRaises(StateError) as e:
            self.s.set("py/a", 3, if_version=v1)
        self.assertEqual(e.exception.code, "version_conflict")
        self.s.set("py/b", None, ttl_seconds=60)
        self.assertEqual(self.s.list(prefix="py/", limit=1)["keys"], ["py/a"])
        page = self.s.list(prefix="py/", limit=1)
        self.assertEqual(self.s.list(prefix="py/", cursor=page["cursor"])["keys"], ["py/b"])
        self.assertTrue(self.s.delete("py/a", if_version=v2))
        self.assertFalse(self.s.delete("py/a"))
        with self.assertRaises(StateError) as e:
            self.s.delete("py/a", if_version=v2)  # a precondition on a missing key fails
        self.assertEqual((e.exception.code, e.exception.status), ("version_conflict", 412))
        self.assertTrue(self.s.delete("py/b"))

    def test_errors(self):
        with self.assertRaises(StateError) as e:
            self.s.set("#reserved", 1)
        self.assertEqual((e.exception.code, e.exception.status), ("bad_request", 400))
        with self.assertRaises(StateError) as e:
            self.s.set("big", "x" * 300_000)
        self.assertEqual((e.exception.code, e.exception.status), ("quota_value_bytes", 413))


if __name__ == "__main__":
    unittest.main()
