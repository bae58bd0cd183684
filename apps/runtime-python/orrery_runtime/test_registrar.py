import io
import json
import os
import tempfile
import threading
import time
import unittest

from .mounted_token_refresh import MountedTokenRefresh
from .registrar import Registrar, backoff_delay_ms
from .state_token_file import write_state_token_file
from .structured_log import Logger

TOKEN = "ab" * 32
WORKER = {"namespace": "shop", "function": "counter", "revision": "counter-00001", "executor": "deploy", "instanceId": "w1", "host": "127.0.0.1", "port": 1, "containerConcurrency": 0}


class RegistrarTest(unittest.TestCase):
    def test_register_heartbeat_reregister_deregister_with_the_credential(self):
        calls = []
        answers = {"heartbeat": [(404, {"code": "not_found"})]}

        def post(url, body, credential, timeout):
            path = url.rsplit("/", 1)[1]
            calls.append((url, path, credential))
            queued = answers.get(path)
            status, envelope = queued.pop(0) if queued else (200, {"code": "ok"})
            return status, envelope, json.dumps(envelope)

        out = io.StringIO()
        r = Registrar(["http://reg/"], WORKER, Logger("runtime", "info", "json", out), credential=TOKEN, lease_ttl_seconds=0.15, post=post)
        r.start()
        time.sleep(0.5)
        r.stop()
        paths = [c[1] for c in calls]
        self.assertEqual(paths[:3], ["register", "heartbeat", "register"])
        self.assertEqual(paths[-1], "deregister")
        self.assertTrue(all(c[0].startswith("http://reg/api/v1/registry/") and c[2] == TOKEN for c in calls))
        self.assertIn("registry no longer knows this instance; registering again", out.getvalue())
        self.assertIn("deregistered from the registry", out.getvalue())
        self.assertNotIn(TOKEN, out.getvalue())

    def test_failures_rotate_urls_then_back_off_and_recovery_is_said(self):
        calls = []
        fail = threading.Event()
        fail.set()

        def post(url, body, credential, timeout):
            calls.append(url)
            if fail.is_set():
                raise ConnectionRefusedError("refused")
            return 200, {"code": "ok"}, "{}"

        out = io.StringIO()
        r = Registrar(["http://a", "http://b"], WORKER, Logger("runtime", "info", "json", out), lease_ttl_seconds=30, min_backoff_ms=20, max_backoff_ms=40, post=post)
        r.start()
        time.sleep(0.2)
        fail.clear()
        time.sleep(0.2)
        r.stop()
        self.assertTrue(any(u.startswith("http://a") for u in calls) and any(u.startswith("http://b") for u in calls))
        self.assertIn("registry register failed; still serving, will retry", out.getvalue())
        self.assertIn("registry reachable again", out.getvalue())
        self.assertTrue(r._ever_registered)
        self.assertEqual(backoff_delay_ms(0, 500, 15000), 500)
        self.assertEqual(backoff_delay_ms(10, 500, 15000), 15000)

    def test_never_registered_means_no_deregister(self):
        calls = []

        def post(url, body, credential, timeout):
            calls.append(url)
            return 503, {"code": "not_leader", "message": "not leader"}, "{}"

        r = Registrar(["http://a"], WORKER, Logger("runtime", "silent", "json", io.StringIO()), post=post, min_backoff_ms=10_000)
        r.start()
        time.sleep(0.1)
        r.stop()
        self.assertFalse(any(u.endswith("deregister") for u in calls))


class MountedTokenRefreshTest(unittest.TestCase):
    def test_a_changed_mounted_token_is_written_to_the_work_dirs_token_file(self):
        mounted_dir, work_dir = tempfile.mkdtemp(), tempfile.mkdtemp()
        mounted = write_state_token_file(mounted_dir, {"namespace": "shop", "keyspace": "counter", "token": "old-token"})
        write_state_token_file(work_dir, {"namespace": "shop", "keyspace": "counter", "token": "old-token"})
        out = io.StringIO()
        told = []
        refresh = MountedTokenRefresh(mounted, work_dir, {"namespace": "shop", "keyspace": "counter", "token": "old-token"}, Logger("runtime", "info", "json", out), on_change=lambda: told.append(1))
        self.assertFalse(refresh.check())
        write_state_token_file(mounted_dir, {"namespace": "shop", "keyspace": "counter", "token": "new-token-1234"})
        self.assertTrue(refresh.check())
        self.assertEqual(told, [1])
        with open(os.path.join(work_dir, ".orrery-state-token")) as f:
            self.assertEqual(json.load(f)["token"], "new-token-1234")
        os.unlink(mounted)
        self.assertFalse(refresh.check())
        self.assertIn("keeping the current token", out.getvalue())
        self.assertNotIn("new-token-1234", out.getvalue())


if __name__ == "__main__":
    unittest.main()
