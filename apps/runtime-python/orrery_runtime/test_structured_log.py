import io
import json
import unittest

from .structured_log import Logger, pretty_line, redact_text, register_secret, resolve_log_format, resolve_log_level


def records(stream):
    return [json.loads(line) for line in stream.getvalue().splitlines()]


class LoggerTest(unittest.TestCase):
    def test_records_have_the_shape_of_every_orrery_component(self):
        out = io.StringIO()
        log = Logger("runtime", "info", "json", out, clock=lambda: 1700000000.123)
        log.child({"function": "f"}).info("hello", {"n": 1}, extra="x")
        log.debug("not shown")
        [r] = records(out)
        self.assertEqual(list(r), ["level", "time", "component", "function", "n", "extra", "msg"])
        self.assertEqual(r, {"level": "info", "time": "2023-11-14T22:13:20.123Z", "component": "runtime", "function": "f", "n": 1, "extra": "x", "msg": "hello"})

    def test_levels_filter_and_silent_says_nothing(self):
        out = io.StringIO()
        Logger("runtime", "warn", "json", out).info("no")
        Logger("runtime", "silent", "json", out).error("no")
        Logger("runtime", "debug", "json", out).debug("yes")
        self.assertEqual([r["msg"] for r in records(out)], ["yes"])

    def test_secrets_and_credential_fields_never_show(self):
        out = io.StringIO()
        register_secret("canary-secret-9f2")
        register_secret("abc")  # too short to mask
        log = Logger("runtime", "info", "json", out)
        log.warn("got canary-secret-9f2 back", {"token": "x", "outer": {"authorization": "y", "headers": {"cookie": "z", "accept": "a"}}, "reason": "Bearer abcdef012345 and password=hunter2"})
        [r] = records(out)
        self.assertEqual(r["msg"], "got *** back")
        self.assertEqual((r["token"], r["outer"]["authorization"], r["outer"]["headers"]["cookie"], r["outer"]["headers"]["accept"]), ("[redacted]", "[redacted]", "[redacted]", "a"))
        self.assertEqual(r["reason"], "Bearer *** and password=***")
        self.assertEqual(redact_text("key " + "ab" * 20), "key ***")
        self.assertEqual(redact_text("redis://:pw@host"), "redis://:***@host")
        self.assertEqual(redact_text("any bearer token is accepted"), "any bearer token is accepted")

    def test_settings_and_the_pretty_form(self):
        self.assertEqual(resolve_log_level(None, {"ORRERY_LOG_LEVEL": "DEBUG"}), ("debug", None))
        self.assertIn("--log-level must be one of", resolve_log_level("loud", {})[1])
        self.assertEqual(resolve_log_format({}, True), ("pretty", None))
        self.assertEqual(resolve_log_format({"ORRERY_LOG_FORMAT": "json"}, True), ("json", None))
        self.assertIn("must be json or pretty", resolve_log_format({"ORRERY_LOG_FORMAT": "xml"}, False)[1])
        line = pretty_line({"level": "info", "time": "2023-11-14T22:13:20.123Z", "component": "runtime", "msg": "hi", "n": 1})
        self.assertEqual(line, '22:13:20.123 INFO  runtime hi {"n":1}\n')


if __name__ == "__main__":
    unittest.main()
