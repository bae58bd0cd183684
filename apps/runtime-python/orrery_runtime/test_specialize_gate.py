import os
import stat
import tempfile
import unittest

from .specialize_gate import (SpecializeGate, SpecializeVerifierError, derive_specialize_nonce, nonce_matches_verifier, read_specialize_verifier,
                              remove_specialize_verifier, specialize_verifier)
from .verifier_init import VerifierInitError, parse_verifier_init_args, write_specialize_verifier_file

# What @orrery/auth computes for ("pool-key", "shop", "uid-1"): the executor and this worker must agree.
NODE_NONCE = "8e73473318036f1091caf14fdf85d49c6376a2bdd525af065e9e4bf7f7168be6"
NODE_VERIFIER = "e0b632bb24a6abfe844665908fb8ba1bfd2af6ba14f1a5cc6b3bbc053ae075ad"


class NonceTest(unittest.TestCase):
    def test_same_derivation_as_packages_auth(self):
        # Fixed by @orrery/auth: hex(HMAC-SHA256(key, "v1:specialize:<ns>:<uid>")) and hex(SHA-256(nonce)).
        nonce = derive_specialize_nonce("pool-key", "shop", "uid-1")
        self.assertEqual(nonce, NODE_NONCE)
        self.assertEqual(specialize_verifier(nonce), NODE_VERIFIER)
        self.assertRegex(nonce, r"^[0-9a-f]{64}$")
        self.assertNotEqual(nonce, derive_specialize_nonce("pool-key", "shop", "uid-2"))
        v = specialize_verifier(nonce)
        self.assertTrue(nonce_matches_verifier(nonce, v))
        self.assertFalse(nonce_matches_verifier(nonce + "x", v))
        self.assertFalse(nonce_matches_verifier("", specialize_verifier("")))
        self.assertFalse(nonce_matches_verifier(nonce, "not-a-verifier"))
        with self.assertRaises(ValueError):
            derive_specialize_nonce("", "shop", "uid")


class GateTest(unittest.TestCase):
    def test_one_admitted_call_then_every_other_is_refused(self):
        used = []
        nonce = "n" * 43
        g = SpecializeGate(specialize_verifier(nonce), on_consumed=lambda: used.append(1))
        self.assertEqual(g.admit(None)[0], 401)
        self.assertEqual(g.admit("Bearer wrong")[1]["code"], "unauthorized")
        self.assertIsNone(g.admit("bearer  %s " % nonce))
        self.assertEqual((g.spent, used), (True, [1]))
        status, body = g.admit("Bearer " + nonce)
        self.assertEqual((status, body["code"]), (409, "specialize_nonce_used"))

    def test_without_a_verifier_nobody_specializes(self):
        status, body = SpecializeGate(None).admit("Bearer anything")
        self.assertEqual(status, 401)
        self.assertIn("has no specialize verifier", body["error"])
        self.assertEqual(SpecializeGate("a" * 64, spent=True).admit("Bearer x")[0], 409)


class VerifierFileTest(unittest.TestCase):
    def test_env_file_missing_file_and_malformed(self):
        d = tempfile.mkdtemp()
        self.assertEqual(read_specialize_verifier(env="a" * 64 + "\n"), ("a" * 64, False))
        with self.assertRaises(SpecializeVerifierError):
            read_specialize_verifier(env="short")
        self.assertEqual(read_specialize_verifier(), (None, False))
        self.assertEqual(read_specialize_verifier(file=os.path.join(d, "gone")), (None, True))
        bad = os.path.join(d, "bad")
        with open(bad, "w") as f:
            f.write("nope")
        with self.assertRaisesRegex(SpecializeVerifierError, "64 lowercase hex"):
            read_specialize_verifier(file=bad)
        remove_specialize_verifier(bad)
        remove_specialize_verifier(bad)
        self.assertFalse(os.path.exists(bad))

    def test_init_container_writes_the_verifier_of_the_pods_nonce_0444(self):
        d = tempfile.mkdtemp()
        key = os.path.join(d, "token")
        with open(key, "w") as f:
            f.write("the-pool-key\n")
        out = os.path.join(d, "specialize", "verifier")
        write_specialize_verifier_file(parse_verifier_init_args(["--pool-key-file", key, "--namespace", "shop", "--pod-uid=uid-7", "--out", out], {}))
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o444)
        self.assertEqual(read_specialize_verifier(file=out), (specialize_verifier(derive_specialize_nonce("the-pool-key", "shop", "uid-7")), False))
        with self.assertRaisesRegex(VerifierInitError, "needs --pod-uid"):
            parse_verifier_init_args(["--pool-key-file", key, "--namespace", "shop", "--out", out], {})
        self.assertEqual(parse_verifier_init_args(["--pool-key-file", key, "--out", out], {"POD_NAMESPACE": "a", "POD_UID": "u"})["pod_uid"], "u")
        with self.assertRaisesRegex(VerifierInitError, "is the Environment's specialize Secret mounted"):
            write_specialize_verifier_file({"pool_key_file": os.path.join(d, "none"), "namespace": "a", "pod_uid": "u", "out": out})


if __name__ == "__main__":
    unittest.main()
