"""Keeps the worker registered with a lease (apps/runtime/src/registration/registrar.ts, on a thread):
register once, heartbeat every TTL/3, register again when the registry has forgotten the instance
(not_found), deregister on stop. Best effort: while the registry is unreachable the worker keeps
serving; calls rotate through the registry URLs, then back off (0.5 s ... 15 s, jittered)."""
import json
import random
import threading
import urllib.error
import urllib.request

from .worker_instance import DEFAULT_LEASE_TTL_SECONDS, instance_key, register_body


def backoff_delay_ms(attempt, initial_ms, max_ms):
    """@orrery/spec backoffDelay: initial x 2^attempt, capped."""
    return min(max_ms, initial_ms * 2 ** min(max(0, attempt), 52))


def _post(url, body, credential, timeout):
    """(status, envelope dict, text) or raises OSError-like errors when there is no answer."""
    headers = {"content-type": "application/json"}
    if credential:
        headers["authorization"] = "Bearer " + credential
    req = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            status, text = res.status, res.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode("utf-8", "replace")
    try:
        envelope = json.loads(text)
        if not isinstance(envelope, dict):
            envelope = {}
    except ValueError:
        envelope = {}
    return status, envelope, text


class Registrar:
    def __init__(self, urls, worker, log, credential=None, lease_ttl_seconds=None, call_timeout=5.0, min_backoff_ms=500, max_backoff_ms=15000, post=_post):
        if not urls:
            raise ValueError("registrar needs at least one registry URL")
        self.urls, self.worker, self.log, self.credential = list(urls), worker, log, credential
        self.ttl = lease_ttl_seconds or DEFAULT_LEASE_TTL_SECONDS
        self.call_timeout, self.min_backoff_ms, self.max_backoff_ms = call_timeout, min_backoff_ms, max_backoff_ms
        self._post = post
        self._url_index = 0
        self.registered = False
        self._ever_registered = False
        self._failures = 0
        self._rounds = 0
        self._stopped = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._run, name="registrar", daemon=True)
        self._thread.start()

    def stop(self):
        """Stops heartbeats and deregisters (bounded by the call timeout)."""
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(self.call_timeout + 1)
        if not self._ever_registered:
            return
        outcome = self._call("/api/v1/registry/deregister", instance_key(self.worker, self.ttl))
        if outcome[0] == "failed":
            self.log.warn("registry deregister failed; the lease will expire on its own", {"reason": outcome[1]})
        else:
            self.log.info("deregistered from the registry")
        self.registered = False

    def _run(self):
        delay = 0.0
        while not self._stopped.wait(delay):
            delay = self._step()

    def _step(self):
        """One register or heartbeat; returns the seconds until the next."""
        if not self.registered:
            kind, reason = self._call("/api/v1/registry/register", register_body(self.worker, self.ttl))
            if kind == "ok":
                self._recovered()
                self.registered = True
                self._ever_registered = True
                self.log.info("registered in the registry", {"instanceId": self.worker["instanceId"], "leaseTtlSeconds": self.ttl})
                return self.ttl / 3
            return self._retry("register", reason if kind == "failed" else "not_found")
        kind, reason = self._call("/api/v1/registry/heartbeat", instance_key(self.worker, self.ttl))
        if kind == "ok":
            self._recovered()
            return self.ttl / 3
        if kind == "not_found":
            # The lease expired (or the registry lost it): register again at once.
            self.log.warn("registry no longer knows this instance; registering again")
            self.registered = False
            return 0.0
        return self._retry("heartbeat", reason)

    def _recovered(self):
        if self._failures > 0:
            self.log.info("registry reachable again", {"afterFailures": self._failures})
        self._failures = 0
        self._rounds = 0

    def _retry(self, what, reason):
        self._failures += 1
        # The first failure and then every tenth, so a long outage does not flood the log.
        if self._failures == 1 or self._failures % 10 == 0:
            self.log.warn("registry %s failed; still serving, will retry" % what, {"reason": reason, "failures": self._failures})
        # Every registry URL in turn at once; back off only after a whole round failed.
        self._url_index = (self._url_index + 1) % len(self.urls)
        if self._url_index != 0:
            return 0.05
        self._rounds += 1
        base = backoff_delay_ms(self._rounds - 1, self.min_backoff_ms, self.max_backoff_ms)
        return base * (0.8 + random.random() * 0.4) / 1000.0

    def _call(self, path, body):
        base = self.urls[self._url_index].rstrip("/")
        try:
            status, envelope, text = self._post(base + path, body, self.credential, self.call_timeout)
        except Exception as e:  # no answer: refused, reset, timed out
            return "failed", "%s%s: %s" % (base, path, getattr(e, "reason", None) or e)
        code = envelope.get("code")
        if 200 <= status < 300 and (code is None or code == "ok"):
            return "ok", None
        if status == 404 or code == "not_found":
            return "not_found", None
        return "failed", ("%s%s answered HTTP %d %s %s" % (base, path, status, code or "", envelope.get("message") or text[:200])).strip()
