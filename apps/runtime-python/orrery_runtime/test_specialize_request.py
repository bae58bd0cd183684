import unittest

from .specialize_request import parse_specialize_request
from .specializer import create_specializer
from .load_error import LoadError

TOKEN = "ab" * 32
BODY = {"namespace": "shop", "function": "f", "revision": "f-00001", "source": {"inline": "x"}}


class ParseTest(unittest.TestCase):
    def test_a_full_body(self):
        a, problem = parse_specialize_request({
            **BODY, "entrypoint": "handler", "containerConcurrency": 2, "timeoutSeconds": 9,
            "stateCredentials": {"namespace": "shop", "keyspace": "f", "token": "t"}, "stateFencing": True,
            "registryCredential": {"namespace": "shop", "service": "orrery.functions.shop.f.f-00001", "token": TOKEN},
            "env": {"MODE": "live"}, "stateUrl": "http://statesvc:8080",
        })
        self.assertIsNone(problem)
        self.assertEqual(a["state"], {"url": "http://statesvc:8080", "credentials": {"namespace": "shop", "keyspace": "f", "token": "t"}, "fencing": True})
        self.assertEqual((a["containerConcurrency"], a["timeoutSeconds"], a["registryCredential"], a["env"]), (2, 9, TOKEN, {"MODE": "live"}))

    def test_defaults_and_the_workers_state_url(self):
        a, _ = parse_specialize_request({"function": "f", "revision": "f-1", "source": {"url": "http://x/f.py"}, "stateCredentials": {"namespace": "default", "keyspace": "k", "token": "t"}}, "http://statesvc")
        self.assertEqual((a["namespace"], a["containerConcurrency"], a["timeoutSeconds"], a["state"]["url"], a["state"]["fencing"]), ("default", 0, 300, "http://statesvc", False))

    def test_every_problem_is_named(self):
        _, problem = parse_specialize_request({"source": {"inline": "a", "url": "b"}, "containerConcurrency": -1, "timeoutSeconds": 0, "stateFencing": "yes", "env": {"ORRERY_X": "1", "OK": 2}})
        for part in ("function (non-empty string) is required", "revision (non-empty string) is required", "source must hold exactly one of inline, url, file or dir",
                     "containerConcurrency must be an integer ≥ 0", "timeoutSeconds must be an integer ≥ 1", "stateFencing must be true or false",
                     'env name "ORRERY_X" is not allowed', "env OK must be a string"):
            self.assertIn(part, problem)
        self.assertTrue(problem.startswith("invalid specialize request: "))
        self.assertEqual(parse_specialize_request([])[1], "body must be a JSON object")
        _, problem = parse_specialize_request({**BODY, "stateCredentials": {"namespace": "shop", "keyspace": "f", "token": "t"}})
        self.assertIn("stateCredentials need stateUrl", problem)

    def test_a_built_package_folder(self):
        a, problem = parse_specialize_request({**BODY, "source": {"dir": "/data/packages/built/k1"}})
        self.assertIsNone(problem)
        self.assertEqual(a["source"], {"dir": "/data/packages/built/k1"})
        a, _ = parse_specialize_request({**BODY, "source": {"dir": "/pkgs/built/k1", "main": "app/main.py"}})
        self.assertEqual(a["source"], {"dir": "/pkgs/built/k1", "main": "app/main.py"})

    def test_a_package_source_that_is_relative_or_escapes_is_refused(self):
        def problem_of(source):
            a, problem = parse_specialize_request({**BODY, "source": source})
            self.assertIsNone(a, source)
            return problem
        self.assertIn("source.dir must be the absolute path of the built package folder", problem_of({"dir": "built/k1"}))
        self.assertIn("source.dir must be the absolute path", problem_of({"dir": "/p\0x"}))
        for main in ("../other/main.py", "a/../../x.py", "/etc/passwd", "a\\..\\..\\x", "", 3, "C:/x.py"):
            self.assertIn('source.main must be a path relative to source.dir, without ".."', problem_of({"dir": "/pkgs/built/k1", "main": main}))
        self.assertIn("source.main goes with source.dir", problem_of({"inline": "x", "main": "main.py"}))
        self.assertIn("exactly one of inline, url, file or dir", problem_of({"dir": "/pkgs/built/k1", "inline": "x"}))

    def test_a_registry_credential_for_another_revision_is_refused(self):
        _, problem = parse_specialize_request({**BODY, "registryCredential": {"namespace": "shop", "service": "orrery.functions.shop.f.f-00002", "token": TOKEN}})
        self.assertIn("registryCredential is for shop/orrery.functions.shop.f.f-00002 but this worker serves shop/orrery.functions.shop.f.f-00001", problem)
        self.assertNotIn(TOKEN, problem)


class SpecializerTest(unittest.TestCase):
    def test_once_only_and_failures_leave_the_worker_spent(self):
        failed = []
        s = create_specializer(lambda a: "127.0.0.1:1", on_failed=lambda: failed.append(1))
        self.assertEqual(s({})[0], 400)
        self.assertEqual(failed, [1])
        status, body = s(BODY)
        self.assertEqual((status, body["specialized"], body["address"], body["revision"]), (200, True, "127.0.0.1:1", "f-00001"))
        status, body = s(BODY)
        self.assertEqual((status, body["code"]), (409, "already_specialized"))

        def boom(_a):
            raise LoadError("entrypoint_not_found", "no handler")

        bad = create_specializer(boom, on_failed=lambda: failed.append(2))
        self.assertEqual(bad(BODY), (422, {"error": "no handler", "code": "entrypoint_not_found"}))
        self.assertEqual(failed, [1, 2])


if __name__ == "__main__":
    unittest.main()
