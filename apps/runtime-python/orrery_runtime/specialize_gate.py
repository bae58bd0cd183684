"""Who may specialize this pool worker, and how often: once, by whoever holds the nonce whose SHA-256
is the worker's verifier (the executor; packages/auth specialize-nonce.ts). The first call with the
right nonce consumes it; every later call is refused, as is any call to a worker with no verifier.
The same rules, codes and texts as apps/runtime/src/specialize-gate.ts."""
import hashlib
import hmac
import os
import re

_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
_BEARER = re.compile(r"Bearer\s+(\S+)\s*", re.I)


def specialize_nonce_info(namespace, pod_uid):
    return "v1:specialize:%s:%s" % (namespace, pod_uid)


def derive_specialize_nonce(pool_key, namespace, pod_uid):
    """The Kubernetes pool pod's nonce: hex(HMAC-SHA256(pool key, "v1:specialize:<namespace>:<pod uid>"))."""
    if not namespace or not pod_uid:
        raise ValueError("a specialize nonce needs a namespace and a pod uid")
    key = pool_key.encode() if isinstance(pool_key, str) else pool_key
    if not key:
        raise ValueError("the pool key is empty")
    return hmac.new(key, specialize_nonce_info(namespace, pod_uid).encode(), hashlib.sha256).hexdigest()


def specialize_verifier(nonce):
    return hashlib.sha256(nonce.encode()).hexdigest()


def is_specialize_verifier(text):
    return bool(_HEX_DIGEST.fullmatch(text))


def nonce_matches_verifier(presented, verifier):
    """Constant time: the presented value is hashed first, so the comparison always runs over 32 bytes."""
    if not is_specialize_verifier(verifier):
        return False
    got = hashlib.sha256(presented.encode()).digest()
    return hmac.compare_digest(got, bytes.fromhex(verifier)) and len(presented) > 0


class SpecializeGate:
    def __init__(self, verifier=None, spent=False, on_consumed=None):
        self._verifier = verifier
        self._consumed = spent
        self._on_consumed = on_consumed

    @property
    def spent(self):
        return self._consumed

    def admit(self, authorization):
        """Checks `Authorization: Bearer <nonce>`; None = go ahead (the nonce is now used up), else (status, body)."""
        if self._consumed:
            return 409, {"error": "this pool worker was specialized already (its specialize nonce is single-use); specialize another pool worker", "code": "specialize_nonce_used"}
        if self._verifier is None:
            return 401, {"error": "this pool worker has no specialize verifier (--specialize-verifier-file or ORRERY_SPECIALIZE_VERIFIER), so nobody can specialize it", "code": "unauthorized"}
        m = _BEARER.fullmatch(authorization or "")
        # Compared even without a header, so "no header" and "wrong nonce" cost the same.
        ok = nonce_matches_verifier(m.group(1) if m else "", self._verifier) and m is not None
        if not ok:
            return 401, {"error": "specialize needs Authorization: Bearer <this worker's specialize nonce, from the executor>", "code": "unauthorized"}
        self._consumed = True
        self._verifier = None
        if self._on_consumed:
            self._on_consumed()
        return None


class SpecializeVerifierError(Exception):
    pass


def read_specialize_verifier(file=None, env=None):
    """(verifier, spent): from the environment (local backend) or a file (Kubernetes, written by the
    pod's init container). A missing file means the worker was specialized before its container
    restarted (the file goes with the nonce), so it starts spent; a malformed one is an error."""
    if env is not None:
        v = env.strip()
        if not is_specialize_verifier(v):
            raise SpecializeVerifierError("ORRERY_SPECIALIZE_VERIFIER must be 64 lowercase hex digits (SHA-256 of the specialize nonce)")
        return v, False
    if file is None:
        return None, False
    try:
        with open(file, encoding="utf-8") as f:
            text = f.read().strip()
    except FileNotFoundError:
        return None, True
    except OSError as e:
        raise SpecializeVerifierError("cannot read specialize verifier file %s: %s" % (file, e.strerror or e)) from None
    if not is_specialize_verifier(text):
        raise SpecializeVerifierError("specialize verifier file %s must hold 64 lowercase hex digits (SHA-256 of the specialize nonce)" % file)
    return text, False


def remove_specialize_verifier(file):
    """Removes the verifier file once its nonce is used, so a restarted container starts spent."""
    try:
        os.unlink(file)
    except FileNotFoundError:
        pass
