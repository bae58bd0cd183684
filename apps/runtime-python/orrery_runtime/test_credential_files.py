import json
import os
import stat
import tempfile
import unittest

from .registry_credential import RegistryCredentialError, credential_from_claims, credential_from_env, read_registry_credential_file
from .state_token_file import STATE_TOKEN_FILE, StateTokenFileError, read_state_token_file, write_state_token_file
from .worker_instance import instance_key, register_body, worker_service_name

TOKEN = "ab" * 32
SERVICE = "orrery.functions.shop.counter.counter-00001"


class StateTokenFileTest(unittest.TestCase):
    def test_written_0444_as_the_specs_json_and_rewritten_in_place(self):
        d = tempfile.mkdtemp()
        path = write_state_token_file(d, {"namespace": "shop", "keyspace": "counter", "token": "t1", "url": "not written"})
        self.assertEqual(path, os.path.join(d, STATE_TOKEN_FILE))
        self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o444)
        with open(path) as f:
            self.assertEqual(f.read(), '{"namespace":"shop","keyspace":"counter","token":"t1"}')
        write_state_token_file(d, {"namespace": "shop", "keyspace": "counter", "token": "t2"})
        with open(path) as f:
            self.assertEqual(json.load(f)["token"], "t2")
        self.assertEqual(sorted(os.listdir(d)), [STATE_TOKEN_FILE])
        with self.assertRaises(ValueError):
            write_state_token_file(d, {"namespace": "shop", "keyspace": "", "token": "t"})

    def test_reading_a_mounted_file_checks_its_claims(self):
        d = tempfile.mkdtemp()
        path = write_state_token_file(d, {"namespace": "shop", "keyspace": "counter", "token": "t1"})
        self.assertEqual(read_state_token_file(path, "shop", "counter"), "t1")
        with self.assertRaisesRegex(StateTokenFileError, 'is for keyspace "counter" but --state-keyspace is "other"'):
            read_state_token_file(path, "shop", "other")
        with self.assertRaisesRegex(StateTokenFileError, "is the state Secret mounted"):
            read_state_token_file(os.path.join(d, "absent"), "shop", "counter")
        bare = os.path.join(d, "bare")
        with open(bare, "w") as f:
            f.write("bare-token\n")
        self.assertEqual(read_state_token_file(bare, "shop", "counter"), "bare-token")


class RegistryCredentialTest(unittest.TestCase):
    def test_claims_for_exactly_this_revision(self):
        self.assertEqual(credential_from_claims({"namespace": "shop", "service": SERVICE, "token": TOKEN}, "shop", "counter", "counter-00001", "x"), TOKEN)
        for bad in ({"namespace": "other", "service": SERVICE, "token": TOKEN}, {"namespace": "shop", "service": SERVICE, "token": "AB" * 32}, "x", None):
            with self.assertRaises(RegistryCredentialError) as caught:
                credential_from_claims(bad, "shop", "counter", "counter-00001", "registryCredential")
            self.assertNotIn(TOKEN, str(caught.exception))
        self.assertEqual(credential_from_env(TOKEN + "\n"), TOKEN)
        with self.assertRaisesRegex(RegistryCredentialError, "64 lowercase hex"):
            credential_from_env("nope")

    def test_the_mounted_file(self):
        d = tempfile.mkdtemp()
        good = os.path.join(d, "good")
        with open(good, "w") as f:
            json.dump({"namespace": "shop", "service": SERVICE, "token": TOKEN}, f)
        self.assertEqual(read_registry_credential_file(good, "shop", "counter", "counter-00001"), TOKEN)
        with self.assertRaisesRegex(RegistryCredentialError, "is the revision's registry Secret mounted"):
            read_registry_credential_file(os.path.join(d, "missing"), "shop", "counter", "counter-00001")


class WorkerInstanceTest(unittest.TestCase):
    def test_the_same_register_body_as_the_node_runtime(self):
        w = {"namespace": "shop", "function": "counter", "revision": "counter-00002", "executor": "deploy", "instanceId": "i-1", "host": "10.0.0.7", "port": 4100, "containerConcurrency": 4}
        self.assertEqual(worker_service_name("shop", "counter", "counter-00002"), "orrery.functions.shop.counter.counter-00002")
        self.assertEqual(register_body(w, 30, pid=12), {
            "namespace": "shop", "organization": "orrery", "businessDomain": "functions", "capabilityDomain": "shop",
            "application": "counter", "role": "counter-00002", "service": "orrery.functions.shop.counter.counter-00002", "instanceId": "i-1",
            "labels": {"orrery.dev/function": "counter", "orrery.dev/revision": "counter-00002", "orrery.dev/executor": "deploy"},
            "metadata": {"orrery.dev/container-concurrency": "4", "pid": "12"},
            "endpoints": [{"name": "http", "protocol": "http", "host": "10.0.0.7", "port": 4100}],
            "leaseTtlSeconds": 30,
        })
        self.assertEqual(register_body({**w, "adminPort": 4101})["endpoints"][1], {"name": "admin", "protocol": "http", "host": "10.0.0.7", "port": 4101})
        self.assertEqual(instance_key(w, 9), {"namespace": "shop", "service": "orrery.functions.shop.counter.counter-00002", "instanceId": "i-1", "leaseTtlSeconds": 9})


if __name__ == "__main__":
    unittest.main()
