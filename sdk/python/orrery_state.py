"""Orrery state client for Python functions: the statesvc HTTP API, standard library only.

Reads ORRERY_STATE_URL and the token file at ORRERY_STATE_TOKEN_PATH ({namespace, keyspace, token}).
After a 401 the token file is read again and the request sent once more (the runtime rewrites the
file when the worker gets a new token); a second 401 is raised, like the TypeScript SDK.

Writes (set, cas, delete) carry an Idempotency-Key: the caller's (idempotency_key=...) or one made
per call (a random UUID). A write whose answer is lost (the connection fails, or 502/503/504) is
sent again with the same key up to `retries` times (default 3), so statesvc applies it once and
answers the retry with the stored outcome.

Fencing (docs/state.md "Fencing"): a key's first write in this process claims a fence
(POST /v1/fences/{key}) and every write of the key sends it as X-Orrery-Fence; after another
worker claimed the key a write raises FencedError (the worker lost the key; nothing was written).
key_moved() makes each key's next write claim afresh (call it when the request carries
X-Orrery-Key-Moved: 1). update(key, fn, retries=5) is the read, fn(value), compare-and-swap loop.

for_invocation(invocation_id, retention_seconds) is the same client for one run of a replayable
invocation (the runtime binds ctx.state so when the router sends Orrery-Invocation-Id; docs/state.md
"Replayed invocations"): each get, set, cas and delete, update()'s included, takes the next position
in call order and is sent with Idempotency-Key: <invocation_id>.<position> and
X-Orrery-Idempotency-Retention: <retention_seconds>, a get retried on a lost answer as a write is. A
second run with the same id gets the first run's answers at the positions the first run reached.

changes(prefix, since) is a generator over the keyspace's change feed (GET /v1/changes, Server-Sent
Events): it reconnects by itself and resumes after the last change it yielded; a position the feed
no longer keeps raises ChangesExpiredError.
"""
import collections, copy, http.client, json, os, random, re, threading, time, urllib.error, urllib.parse, urllib.request, uuid


_NO_BODY = object()
_RETRY_STATUSES = (502, 503, 504)
_MAX_RETRY_DELAY = 2.0

# Request header asking statesvc to keep an outcome for at most this many seconds (capped by the keyspace's retention).
IDEMPOTENCY_RETENTION_HEADER = "X-Orrery-Idempotency-Retention"
# An invocation id the router mints: 16-64 URL-safe characters (it sends 32 hex digits).
_INVOCATION_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def is_invocation_id(value):
    """True for a string the router could mint as an invocation id (and so a usable key prefix)."""
    return isinstance(value, str) and _INVOCATION_ID.fullmatch(value) is not None


class InvocationPositions:
    """The numbering of one invocation's state calls (packages/sdk/src/invocation-positions.ts):
    next() is the idempotency key of the next call, `<invocation_id>.<n>` for n = 1, 2, ... in the
    order the calls are made (taken under a lock, before any I/O, so threads get distinct ones)."""

    def __init__(self, invocation_id, retention_seconds):
        if not is_invocation_id(invocation_id):
            raise ValueError("invocation id %s is not 16-64 of [A-Za-z0-9_-]" % json.dumps(invocation_id, default=repr))
        if isinstance(retention_seconds, bool) or not isinstance(retention_seconds, int) or retention_seconds < 1:
            raise ValueError("retention must be a whole number of seconds >= 1, not %r" % (retention_seconds,))
        self.invocation_id = invocation_id
        # The header value every numbered call sends (the same for the whole invocation).
        self.retention = str(retention_seconds)
        self._taken = 0
        self._lock = threading.Lock()

    def next(self):
        with self._lock:
            self._taken += 1
            return "%s.%d" % (self.invocation_id, self._taken)


class StateError(Exception):
    def __init__(self, code, status, message):
        super().__init__(message)
        self.code, self.status = code, status


class FencedError(StateError):
    """409 fenced: another worker claimed the key since (or the fence was never issued for it);
    nothing was written. `fence` is the key's current fence (0 = none)."""

    def __init__(self, key, fence, message):
        super().__init__("fenced", 409, message)
        self.key, self.fence = key, fence


class UpdateConflictError(StateError):
    """update() ran out of attempts: every compare-and-swap met a newer version."""

    def __init__(self, key, attempts):
        super().__init__("version_conflict", 412, "update of key %s gave up after %d attempts: another writer changed it each time; retry later or raise retries" % (json.dumps(key), attempts))
        self.key, self.attempts = key, attempts


_MAX_FENCES = 10000
_UPDATE_RETRIES = 5
# update()'s pause after a lost race: up to this many seconds at first, doubling, at most _UPDATE_MAX_BACKOFF.
_UPDATE_BACKOFF = 0.01
_UPDATE_MAX_BACKOFF = 0.5


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


class _Credentials:
    """The request headers made from the token file; one for a client and every copy bound from it,
    so a re-read (after a 401, or the runtime's on_change) reaches them all."""

    headers = None


class StateClient:
    def __init__(self, url=None, token_path=None, retries=3, retry_delay=0.1, idempotent_writes=True, fencing=False):
        """retries: how many times a write whose answer was lost is sent again (0 = never);
        retry_delay: seconds before the first retry, doubled each time (at most 2 s), +-20 % jitter;
        idempotent_writes=False: no key of the client's making, and writes without one never retried;
        fencing=True: a key's first write in this process claims a fence and every write sends it
        (docs/state.md "Fencing"); off by default until the router tells a worker that a key moved
        back to it (a worker that owned the key before would keep its old fence and be refused)."""
        self.url = (url or os.environ.get("ORRERY_STATE_URL", "")).rstrip("/")
        self.token_path = token_path or os.environ["ORRERY_STATE_TOKEN_PATH"]
        self.retries, self.retry_delay, self.idempotent_writes = retries, retry_delay, idempotent_writes
        self.fencing = fencing
        # key -> fence held by this process (bounded: the oldest is forgotten and claimed again on its next write).
        self._fences = collections.OrderedDict()
        self._fence_lock = threading.Lock()
        # update(): one at a time per key in this process (key -> [lock, holders]).
        self._update_locks = {}
        self._update_locks_lock = threading.Lock()
        # A replayable invocation's numbering (for_invocation); None otherwise.
        self._positions = None
        self._creds = _Credentials()
        self._load_token()

    @property
    def headers(self):
        return self._creds.headers

    @property
    def invocation_id(self):
        """The invocation this client numbers its calls for (for_invocation), or None."""
        return None if self._positions is None else self._positions.invocation_id

    def for_invocation(self, invocation_id, retention_seconds):
        """The same client (URL, token, fences, the per-key update() lock) for one run of a replayable
        invocation, with a numbering of its own: each get, set, cas and delete, update()'s included,
        takes the next position in call order and is sent with Idempotency-Key:
        <invocation_id>.<position> and X-Orrery-Idempotency-Retention: <retention_seconds>; a numbered
        get whose answer is lost is sent again with the same key, as a write is. A second run with the
        same id gets the first run's answers at the positions the first run reached, so it reads what
        the first run read and its writes apply once. An idempotency_key passed in a call still wins
        (sent without the retention; the position is used up all the same). list, changes and claim
        are not numbered. Raises ValueError for an id that is not 16-64 of [A-Za-z0-9_-] or a
        retention that is not a whole number of seconds >= 1."""
        positions = InvocationPositions(invocation_id, retention_seconds)
        bound = copy.copy(self)  # shares the fence table, the update locks and the credentials
        bound._positions = positions
        return bound

    def _load_token(self):
        with open(self.token_path) as f:
            c = json.load(f)
        self._creds.headers = {"Authorization": "Bearer " + c["token"], "X-Orrery-State-Namespace": c["namespace"],
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
            if e.code == 409 and err.get("code") == "fenced":
                raise FencedError(urllib.parse.unquote(path.split("/")[3]), int(err.get("fence") or 0), err.get("error", str(e))) from None
            raise StateError(err.get("code", "internal"), e.code, err.get("error", str(e))) from None

    def claim(self, key):
        """Claims the key for this worker now and returns the fence; its writes send it from then on."""
        fence = self._call("POST", "/v1/fences/" + urllib.parse.quote(key, safe=""))[2]["fence"]
        if self.fencing:
            with self._fence_lock:
                self._fences.pop(key, None)
                self._fences[key] = fence
                if len(self._fences) > _MAX_FENCES:
                    self._fences.popitem(last=False)
        return fence

    def key_moved(self):
        """The router moved a key here (X-Orrery-Key-Moved: 1): every key's next write claims a new fence."""
        with self._fence_lock:
            self._fences.clear()

    def _fence_header(self, key):
        if not self.fencing:
            return {}
        with self._fence_lock:
            fence = self._fences.get(key)
        return {"X-Orrery-Fence": str(fence if fence is not None else self.claim(key))}

    def _numbered(self, position):
        """The headers of a call numbered by the invocation (its key and how long statesvc keeps the answer)."""
        return {"Idempotency-Key": position, IDEMPOTENCY_RETENTION_HEADER: self._positions.retention}

    def _write(self, method, path, body=_NO_BODY, headers=None, idempotency_key=None, state_key=None):
        """One logical write: its key (and its fence) are taken once, here, and every attempt sends them."""
        # Taken before anything is sent (a fence claim included), so positions follow the order of the calls.
        position = None if self._positions is None else self._positions.next()
        headers = dict(headers or {})
        if state_key is not None:
            headers.update(self._fence_header(state_key))
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        elif position is not None:
            headers.update(self._numbered(position))
        elif self.idempotent_writes:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        return self._send(method, path, body, headers, retries=self.retries if "Idempotency-Key" in headers else 0)

    def _send(self, method, path, body, headers, retries):
        """One request, sent again (up to `retries` times, with the same headers) while its answer is
        lost: a keyed request, which statesvc answers from the stored outcome instead of applying twice."""
        attempt = 0
        while True:
            try:
                return self._call(method, path, body, headers)
            except StateError as e:
                if attempt >= retries or e.status not in _RETRY_STATUSES:
                    raise
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError):
                # No answer at all (refused, reset, closed mid-answer): the request may or may not have been applied.
                if attempt >= retries:
                    raise
            time.sleep(min(_MAX_RETRY_DELAY, self.retry_delay * 2 ** attempt) * random.uniform(0.8, 1.2))
            attempt += 1

    def _key(self, key):
        return "/v1/state/" + urllib.parse.quote(key, safe="")

    def get(self, key):
        # In a replayable invocation a read is recorded (statesvc keeps its answer for a replay).
        position = None if self._positions is None else self._positions.next()
        if position is None:
            status, headers, body = self._call("GET", self._key(key))
        else:
            status, headers, body = self._send("GET", self._key(key), _NO_BODY, self._numbered(position), self.retries)
        return None if status == 404 else {"value": body["value"], "version": int(headers["X-Orrery-State-Version"])}

    def set(self, key, value, ttl_seconds=None, if_version=None, idempotency_key=None):
        h = {k: str(v) for k, v in (("X-Orrery-State-TTL", ttl_seconds), ("If-Match", if_version)) if v is not None}
        return self._write("PUT", self._key(key), value, h, idempotency_key, key)[2]

    def cas(self, key, expect_version, value, idempotency_key=None, ttl_seconds=None):
        h = None if ttl_seconds is None else {"X-Orrery-State-TTL": str(ttl_seconds)}
        return self._write("POST", self._key(key) + "/cas", {"expectVersion": expect_version, "value": value}, h, idempotency_key, key)[2]

    def delete(self, key, if_version=None, idempotency_key=None):
        h = {} if if_version is None else {"If-Match": str(if_version)}
        return self._write("DELETE", self._key(key), headers=h, idempotency_key=idempotency_key, state_key=key)[0] == 200

    def update(self, key, fn, retries=_UPDATE_RETRIES, ttl_seconds=None):
        """Read, fn(value) (None for a missing key), compare-and-swap with the version read; again on
        a version conflict, up to `retries` more times, then UpdateConflictError. fn may run more than
        once: keep it free of side effects. Returns {"value", "version"}. Fenced like every write.
        The updates of one key in this process run one at a time (threads wait for each other), so
        only another process's write makes it retry, after a random pause that grows each time."""
        with self._update_locks_lock:
            entry = self._update_locks.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0]:
                return self._update_once_at_a_time(key, fn, retries, ttl_seconds)
        finally:
            with self._update_locks_lock:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._update_locks[key]

    def _update_once_at_a_time(self, key, fn, retries, ttl_seconds):
        attempts = 1 + max(0, retries)
        for attempt in range(1, attempts + 1):
            current = self.get(key)
            value = fn(None if current is None else current["value"])
            try:
                version = self.cas(key, 0 if current is None else current["version"], value, ttl_seconds=ttl_seconds)["version"]
                return {"value": value, "version": version}
            except FencedError:
                raise
            except StateError as e:
                if e.code != "version_conflict":
                    raise
            if attempt < attempts:
                time.sleep(random.random() * min(_UPDATE_MAX_BACKOFF, _UPDATE_BACKOFF * 2 ** (attempt - 1)))
        raise UpdateConflictError(key, attempts)

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
