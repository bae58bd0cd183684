import unittest

from .config import ConfigError, parse_runtime_config, tracing_requested

BASE = ["--function", "f", "--revision", "f-00001", "--source-inline", "def handler(r, c): return 'x'"]


def parse(argv, env=None):
    return parse_runtime_config(argv, env or {})


class ConfigTest(unittest.TestCase):
    def test_a_package_folder_and_its_module(self):
        c = parse(["--function", "f", "--revision", "f-00001", "--source-dir", "/pkgs/k", "--source-main", "app/h.py"])
        self.assertEqual(c.source, {"dir": "/pkgs/k", "main": "app/h.py"})
        self.assertEqual(parse(["--function", "f", "--revision", "f-00001", "--source-dir", "/pkgs/k"]).source, {"dir": "/pkgs/k"})

    def test_defaults_match_the_node_runtime(self):
        c = parse(BASE)
        self.assertEqual((c.mode, c.host, c.port, c.admin_port, c.namespace, c.entrypoint), ("deploy", "127.0.0.1", 8080, None, "default", "default"))
        self.assertEqual((c.container_concurrency, c.timeout_seconds, c.drain_timeout_seconds), (0, 300, 300))
        self.assertEqual((c.max_request_bytes, c.max_source_bytes, c.lease_ttl_seconds), (64 * 1024 * 1024, 8 * 1024 * 1024, 30))
        self.assertEqual(c.source, {"inline": "def handler(r, c): return 'x'"})
        self.assertFalse(c.state_fencing)

    def test_flags_in_both_spellings_and_environment_fallbacks(self):
        c = parse(BASE + ["--port=0", "--timeout-seconds", "2", "--registry-url", "http://a, http://b"], {"ORRERY_CONTAINER_CONCURRENCY": "4", "ORRERY_NAMESPACE": "shop"})
        self.assertEqual((c.port, c.timeout_seconds, c.drain_timeout_seconds, c.container_concurrency, c.namespace), (0, 2, 2, 4, "shop"))
        self.assertEqual(c.registry_urls, ["http://a", "http://b"])
        # The flag wins over the environment; an empty variable is unset.
        self.assertEqual(parse(BASE + ["--namespace", "a"], {"ORRERY_NAMESPACE": "b"}).namespace, "a")
        self.assertEqual(parse(BASE, {"ORRERY_NAMESPACE": ""}).namespace, "default")

    def test_refuses_bad_values_with_the_node_runtimes_messages(self):
        cases = [
            (BASE + ["--mode", "x"], '--mode must be deploy or pool, got "x"'),
            (BASE + ["--timeout-seconds", "0"], '--timeout-seconds must be an integer ≥ 1, got "0"'),
            (BASE + ["--container-concurrency", "1.5"], "--container-concurrency must be an integer ≥ 0"),
            (BASE + ["--port", "70000"], "--port must be a port number"),
            (BASE + ["--state-fencing", "yes"], '--state-fencing must be on or off, got "yes"'),
            (BASE + ["--nope", "1"], "Unknown option '--nope'"),
            (BASE + ["positional"], "Unexpected argument"),
            (["--function", "f"], "deploy mode needs --revision, a source"),
            (BASE + ["--source-file", "x.py"], "give only one of --source-file, --source-inline, --source-url"),
            (BASE + ["--source-dir", "/p"], "give only one of --source-file, --source-inline, --source-url, --source-dir"),
            (BASE + ["--source-main", "m.py"], "--source-main goes with --source-dir"),
            (["--mode", "pool", "--function", "f"], "pool mode starts generic"),
            (BASE + ["--state-keyspace", "k"], "--state-keyspace needs --state-url"),
            (BASE + ["--state-keyspace", "k", "--state-url", "http://s"], "--state-keyspace needs the token"),
            (BASE + ["--state-fencing", "on"], "--state-fencing on needs --state-keyspace"),
            (BASE + ["--specialize-token-file", "x"], "--specialize-token-file (one token shared by the whole pool) is gone"),
            (BASE + ["--log-level", "loud"], "--log-level must be one of"),
        ]
        for argv, message in cases:
            with self.assertRaises(ConfigError, msg=argv) as caught:
                parse(argv)
            self.assertIn(message, str(caught.exception))

    def test_credentials_come_one_way_and_only_where_they_belong(self):
        with self.assertRaisesRegex(ConfigError, "ORRERY_STATE_TOKEN is set but no --state-keyspace"):
            parse(BASE, {"ORRERY_STATE_TOKEN": "t"})
        with self.assertRaisesRegex(ConfigError, "not both"):
            parse(BASE + ["--state-keyspace", "k", "--state-url", "http://s", "--state-token-file", "/f"], {"ORRERY_STATE_TOKEN": "t"})
        with self.assertRaisesRegex(ConfigError, "pool mode receives its registry credential at specialize"):
            parse(["--mode", "pool"], {"ORRERY_REGISTRY_CREDENTIAL": "x"})
        with self.assertRaisesRegex(ConfigError, "is for pool mode"):
            parse(BASE, {"ORRERY_SPECIALIZE_VERIFIER": "a" * 64})
        c = parse(BASE + ["--state-keyspace", "k", "--state-url", "http://s", "--state-fencing", "on"], {"ORRERY_STATE_TOKEN": "t"})
        self.assertEqual((c.state_token, c.state_keyspace, c.state_fencing), ("t", "k", True))
        p = parse(["--mode", "pool"], {"ORRERY_SPECIALIZE_VERIFIER": "a" * 64, "ORRERY_STATE_URL": "http://s"})
        self.assertEqual((p.specialize_verifier, p.state_url), ("a" * 64, "http://s"))

    def test_tracing_is_noticed_so_the_worker_can_say_it_records_nothing(self):
        c = parse(BASE)
        self.assertFalse(tracing_requested(c, {}))
        self.assertTrue(tracing_requested(c, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}))
        self.assertFalse(tracing_requested(c, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}))
        self.assertTrue(tracing_requested(parse(BASE + ["--otlp-endpoint", "http://c:4318"]), {}))

    def test_exit_with_parent_is_a_pid_from_the_flag_or_the_environment(self):
        self.assertIsNone(parse(BASE).exit_with_parent)
        self.assertEqual(parse(BASE + ["--exit-with-parent", "4242"]).exit_with_parent, 4242)
        self.assertEqual(parse(BASE, {"ORRERY_EXIT_WITH_PARENT": "77"}).exit_with_parent, 77)
        for bad in ("0", "-3", "operator", "1.5"):
            with self.assertRaisesRegex(ConfigError, "--exit-with-parent must be an integer"):
                parse(BASE + ["--exit-with-parent=" + bad])


if __name__ == "__main__":
    unittest.main()
