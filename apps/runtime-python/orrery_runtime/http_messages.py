"""What a Python handler receives and returns (docs/python.md "The handler"), the Python shape of the
Node runtime's Web Request and Response: `request.method`, `.url`, `.path`, `.query`, `.headers`,
`.body` (bytes), `.text()`, `.json()`, `.cancelled`; the handler returns a Response, or a dict/list
(JSON), str (text), bytes, or a `(body, status[, headers])` tuple. Pure."""
import inspect
import json
import threading
import urllib.parse


class Headers:
    """Case-insensitive, multi-valued; get() joins repeated values with ", " as fetch's Headers does."""

    def __init__(self, pairs=()):
        self._pairs = []
        items = pairs.items() if isinstance(pairs, dict) else pairs
        for name, value in items:
            self.add(name, value)

    def add(self, name, value):
        self._pairs.append((str(name), str(value)))

    def get(self, name, default=None):
        lower = name.lower()
        found = [v for n, v in self._pairs if n.lower() == lower]
        return ", ".join(found) if found else default

    def get_all(self, name):
        lower = name.lower()
        return [v for n, v in self._pairs if n.lower() == lower]

    def set(self, name, value):
        lower = name.lower()
        self._pairs = [(n, v) for n, v in self._pairs if n.lower() != lower]
        self._pairs.append((str(name), str(value)))

    def __getitem__(self, name):
        v = self.get(name)
        if v is None:
            raise KeyError(name)
        return v

    def __contains__(self, name):
        return self.get(name) is not None

    def items(self):
        return list(self._pairs)

    def keys(self):
        seen = []
        for n, _ in self._pairs:
            if n.lower() not in seen:
                seen.append(n.lower())
        return seen

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def __repr__(self):
        return "Headers(%r)" % (self._pairs,)


class Request:
    def __init__(self, method, target, headers, body=b"", cancelled=None):
        self.method = method
        host = headers.get("host") or "localhost"
        # The full URL as the worker received it, as the Node runtime's request.url.
        self.url = "http://%s%s" % (host, target if target.startswith("/") else "/" + target)
        path, _, query = target.partition("?")
        self.path = path or "/"
        self.query_string = query
        self.query_pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
        # First value of each name (use query_pairs for repeated names).
        self.query = {}
        for k, v in self.query_pairs:
            self.query.setdefault(k, v)
        self.headers = headers
        self.body = body
        # Set when the client goes away or the function's timeout passes (the Node runtime's request.signal).
        self.cancelled = cancelled if cancelled is not None else threading.Event()

    def text(self, encoding="utf-8"):
        return self.body.decode(encoding)

    def json(self):
        return json.loads(self.body or b"null")


class Response:
    """body: bytes, str, a dict/list (sent as JSON), or an iterable / async iterable of bytes or str
    chunks, streamed with chunked encoding after the head."""

    def __init__(self, body=b"", status=200, headers=None):
        if not isinstance(status, int) or isinstance(status, bool) or not 200 <= status <= 599:
            raise ValueError("Response status must be an integer from 200 to 599, got %r" % (status,))
        self.status = status
        self.headers = headers if isinstance(headers, Headers) else Headers(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body, separators=(",", ":")).encode()
            if "content-type" not in self.headers:
                self.headers.set("content-type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
            if "content-type" not in self.headers:
                self.headers.set("content-type", "text/plain;charset=UTF-8")
        elif isinstance(body, (bytes, bytearray, memoryview)):
            body = bytes(body)
        elif body is None:
            body = b""
        elif not (hasattr(body, "__iter__") or hasattr(body, "__aiter__")):
            raise TypeError("Response body must be bytes, str, a dict or list, or an iterable of chunks, got %s" % type(body).__name__)
        self.body = body

    @property
    def streamed(self):
        return not isinstance(self.body, bytes)

    @staticmethod
    def json(value, status=200, headers=None):
        r = Response(json.dumps(value, separators=(",", ":")).encode(), status, headers)
        if "content-type" not in r.headers:
            r.headers.set("content-type", "application/json")
        return r


class InvalidResponse(Exception):
    """The handler returned something the runtime cannot send (500 invalid_response)."""


def to_response(result):
    """A handler's return value as a Response, or InvalidResponse naming what it got."""
    if isinstance(result, Response):
        return result
    if isinstance(result, tuple) and 2 <= len(result) <= 3:
        body, status = result[0], result[1]
        headers = result[2] if len(result) == 3 else None
        try:
            return result[0] if isinstance(body, Response) else Response(body, status, headers)
        except (TypeError, ValueError) as e:
            raise InvalidResponse(str(e)) from None
    if isinstance(result, (dict, list, str, bytes, bytearray)):
        return Response(result)
    got = "None" if result is None else ("a coroutine (call it with await)" if inspect.iscoroutine(result) else type(result).__name__)
    raise InvalidResponse("the handler returned %s" % got)
