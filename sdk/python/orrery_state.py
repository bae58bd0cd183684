"""Orrery state client for Python functions: the statesvc HTTP API, standard library only.

Reads ORRERY_STATE_URL and the token file at ORRERY_STATE_TOKEN_PATH ({namespace, keyspace, token}).
After a 401 the token file is read again and the request sent once more (the runtime rewrites the
file when the worker gets a new token); a second 401 is raised, like the TypeScript SDK.
"""
import json, os, urllib.error, urllib.parse, urllib.request


_NO_BODY = object()


class StateError(Exception):
    def __init__(self, code, status, message):
        super().__init__(message)
        self.code, self.status = code, status


class StateClient:
    def __init__(self, url=None, token_path=None):
        self.url = (url or os.environ.get("ORRERY_STATE_URL", "")).rstrip("/")
        self.token_path = token_path or os.environ["ORRERY_STATE_TOKEN_PATH"]
        self._load_token()

    def _load_token(self):
        with open(self.token_path) as f:
            c = json.load(f)
        self.headers = {"Authorization": "Bearer " + c["token"], "X-Orrery-State-Namespace": c["namespace"],
                        "X-Orrery-State-Keyspace": c["keyspace"], "Content-Type": "application/json"}

    def _call(self, method, path, body=_NO_BODY, headers=None, retried=False):
        data = None if body is _NO_BODY else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data, {**self.headers, **(headers or {})}, method=method)
        try:
            with urllib.request.urlopen(req) as res:
                return res.status, res.headers, json.loads(res.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            if e.code == 401 and not retried:
                self._load_token()
                return self._call(method, path, body, headers, retried=True)
            try:
                err = json.loads(raw or b"{}")
            except ValueError:
                err = {"error": raw.decode("utf-8", "replace") or str(e)}
            if e.code == 404 and method in ("GET", "DELETE") and path.startswith("/v1/state/"):
                return 404, e.headers, None
            raise StateError(err.get("code", "internal"), e.code, err.get("error", str(e))) from None

    def _key(self, key):
        return "/v1/state/" + urllib.parse.quote(key, safe="")

    def get(self, key):
        status, headers, body = self._call("GET", self._key(key))
        return None if status == 404 else {"value": body["value"], "version": int(headers["X-Orrery-State-Version"])}

    def set(self, key, value, ttl_seconds=None, if_version=None):
        h = {k: str(v) for k, v in (("X-Orrery-State-TTL", ttl_seconds), ("If-Match", if_version)) if v is not None}
        return self._call("PUT", self._key(key), value, h)[2]

    def cas(self, key, expect_version, value):
        return self._call("POST", self._key(key) + "/cas", {"expectVersion": expect_version, "value": value})[2]

    def delete(self, key, if_version=None):
        h = {} if if_version is None else {"If-Match": str(if_version)}
        return self._call("DELETE", self._key(key), headers=h)[0] == 200

    def list(self, prefix="", cursor="", limit=None):
        q = {k: v for k, v in (("prefix", prefix), ("cursor", cursor), ("limit", limit)) if v}
        return self._call("GET", "/v1/state" + ("?" + urllib.parse.urlencode(q) if q else ""))[2]
