"""Orrery state client for Python functions: the statesvc HTTP API, standard library only.

Reads ORRERY_STATE_URL and the token file at ORRERY_STATE_TOKEN_PATH ({namespace, keyspace, token}).
After a 401 the token file is read again and the request sent once more (the runtime rewrites the
file when the worker gets a new token); a second 401 is raised, like the TypeScript SDK.

Writes (set, cas, delete) carry an Idempotency-Key: the caller's (idempotency_key=...) or one made
per call (a random UUID). A write whose answer is lost (the connection fails, or 502/503/504) is
sent again with the same key up to `retries` times (default 3), so statesvc applies it once and
answers the retry with the stored outcome.

changes(prefix, since) is a generator over the keyspace's change feed (GET /v1/changes, Server-Sent
Events): it reconnects by itself and resumes after the last change it yielded; a position the feed
no longer keeps raises ChangesExpiredError.
"""
import http.client, json, os, random, time, urllib.error, urllib.parse, urllib.request, uuid


_NO_BODY = object()
_RETRY_STATUSES = (502, 503, 504)
_MAX_RETRY_DELAY = 2.0


class StateError(Exception):
    def __init__(self, code, status, message):
        super().__init__(message)
        self.code, self.status = code, status


class ChangesExpiredError(StateError):
    """The position asked for is no longer (or not yet) in the change feed: re-read the keys, then
    follow from now (changes(since=None))."""

    def __init__(self, message):
        super().__init__("changes_expired", 410, message)


def _state_error(raw, status, fallback):
    try:
        err = json.loads(raw or b"{}")
    except ValueError:
        err = {"error": raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)}
    code, message = err.get("code", "internal"), err.get("error", fallback)
    return ChangesExpiredError(message) if code == "changes_expired" else StateError(code, status, message)


_STREAM_STATUS = {"changes_expired": 410, "forbidden": 403, "capability_unavailable": 503, "internal": 500}


class StateClient:
    def __init__(self, url=None, token_path=None, retries=3, retry_delay=0.1, idempotent_writes=True):
        """retries: how many times a write whose answer was lost is sent again (0 = never);
        retry_delay: seconds before the first retry, doubled each time (at most 2 s), +-20 % jitter;
        idempotent_writes=False: no key of the client's making, and writes without one never retried."""
        self.url = (url or os.environ.get("ORRERY_STATE_URL", "")).rstrip("/")
        self.token_path = token_path or os.environ["ORRERY_STATE_TOKEN_PATH"]
        self.retries, self.retry_delay, self.idempotent_writes = retries, retry_delay, idempotent_writes
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

    def _write(self, method, path, body=_NO_BODY, headers=None, idempotency_key=None):
        """One logical write: its key is made once, here, and every attempt sends it."""
        key = idempotency_key if idempotency_key is not None else (str(uuid.uuid4()) if self.idempotent_writes else None)
        headers = dict(headers or {})
        if key is not None:
            headers["Idempotency-Key"] = key
        retries = self.retries if key is not None else 0
        attempt = 0
        while True:
            try:
                return self._call(method, path, body, headers)
            except StateError as e:
                if attempt >= retries or e.status not in _RETRY_STATUSES:
                    raise
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError):
                # No answer at all (refused, reset, closed mid-answer): the write may or may not have landed.
                if attempt >= retries:
                    raise
            time.sleep(min(_MAX_RETRY_DELAY, self.retry_delay * 2 ** attempt) * random.uniform(0.8, 1.2))
            attempt += 1

    def _key(self, key):
        return "/v1/state/" + urllib.parse.quote(key, safe="")

    def get(self, key):
        status, headers, body = self._call("GET", self._key(key))
        return None if status == 404 else {"value": body["value"], "version": int(headers["X-Orrery-State-Version"])}

    def set(self, key, value, ttl_seconds=None, if_version=None, idempotency_key=None):
        h = {k: str(v) for k, v in (("X-Orrery-State-TTL", ttl_seconds), ("If-Match", if_version)) if v is not None}
        return self._write("PUT", self._key(key), value, h, idempotency_key)[2]

    def cas(self, key, expect_version, value, idempotency_key=None):
        return self._write("POST", self._key(key) + "/cas", {"expectVersion": expect_version, "value": value}, None, idempotency_key)[2]

    def delete(self, key, if_version=None, idempotency_key=None):
        h = {} if if_version is None else {"If-Match": str(if_version)}
        return self._write("DELETE", self._key(key), headers=h, idempotency_key=idempotency_key)[0] == 200

    def list(self, prefix="", cursor="", limit=None):
        q = {k: v for k, v in (("prefix", prefix), ("cursor", cursor), ("limit", limit)) if v}
        return self._call("GET", "/v1/state" + ("?" + urllib.parse.urlencode(q) if q else ""))[2]

    def changes(self, prefix="", since=None, idle_timeout=60.0, retry_delay=0.2):
        """Yields the keyspace's changes as they commit, in order, each once: dicts
        {"seq", "key", "op": "set"|"delete"|"expire", "version"} plus "value" for a set.

        since=None follows from now, since=0 from the oldest change kept, since=n resumes after
        change n. Reconnects by itself (a dropped or silent connection, statesvc restarting,
        502/503/504), resuming after the last change yielded. Raises ChangesExpiredError when the
        position is no longer kept, StateError for other refusals (403, 429). Stop by leaving the loop."""
        position, failures, reread = since, 0, False
        while True:
            q = [(k, v) for k, v in (("prefix", prefix), ("since", position)) if v is not None and v != ""]
            url = self.url + "/v1/changes" + ("?" + urllib.parse.urlencode(q) if q else "")
            req = urllib.request.Request(url, None, {**self.headers, "Accept": "text/event-stream"}, method="GET")
            try:
                res = urllib.request.urlopen(req, timeout=idle_timeout)
            except urllib.error.HTTPError as e:
                raw = e.read()
                if e.code == 401 and not reread:
                    self._load_token()
                    reread = True
                    continue
                if e.code not in _RETRY_STATUSES:
                    raise _state_error(raw, e.code, str(e)) from None
                res = None
            except (urllib.error.URLError, http.client.HTTPException, OSError):
                res = None  # no answer: statesvc restarting, connection refused or timed out
            if res is not None:
                reread = False
                try:
                    with res:
                        for item in _events(res):
                            if item[0] == "position":
                                position = item[1]
                                continue
                            event, data = item[1], item[2]
                            if event == "error":
                                err = _state_error(data.encode(), 500, "the change feed ended with an error")
                                if err.code in ("capability_unavailable", "internal"):
                                    break  # a database outage: reconnect
                                if not isinstance(err, ChangesExpiredError):
                                    err.status = _STREAM_STATUS.get(err.code, 500)
                                raise err
                            if event != "message":
                                continue
                            change = json.loads(data)
                            if position is not None and change["seq"] <= position:
                                continue  # never twice
                            position, failures = change["seq"], 0
                            yield change
                except (http.client.HTTPException, OSError, ValueError):
                    pass  # lost mid-stream (or silent past idle_timeout): reconnect
            time.sleep(min(5.0, retry_delay * 2 ** failures) * random.uniform(0.8, 1.2))
            failures += 1


def _events(res):
    """Server-Sent Events from a response: ("position", n) for a block with an id and no data,
    ("event", type, data) for the others. Lines end in \n (statesvc never sends a lone \r)."""
    event, data, ident = "", [], None
    while True:
        raw = res.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                yield ("event", event or "message", "\n".join(data))
            elif ident is not None and ident.isdigit():
                yield ("position", int(ident))
            event, data, ident = "", [], None
        elif not line.startswith(":"):
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                event = value
            elif field == "data":
                data.append(value)
            elif field == "id":
                ident = value
