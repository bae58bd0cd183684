"""The worker's HTTP face in the role of Knative's queue-proxy, with the Node runtime's wire contract
(apps/runtime/src/worker-server.ts): concurrency breaker with a local FIFO, time-to-response-head
timeout counted from arrival, per-second stats, health, readiness, drain, the reserved runtime routes
and their answers. Threads: one per connection (http.server), sync handlers on a thread pool, async
handlers on one event loop thread."""
import concurrent.futures
import http.server
import json
import os
import select
import socket
import socketserver
import threading
import time
import traceback

from .concurrency_meter import ConcurrencyMeter
from .http_messages import Headers, InvalidResponse, Request, to_response
from .breaker import BreakerError
from .handshake_refusal import refuse_handshake
from .load_function import positional_arity
from .replayable_invocation import INVOCATION_ID_HEADER, bind_invocation
from .structured_log import iso_time
from .websocket_frames import CLOSE_GOING_AWAY, CLOSE_INTERNAL_ERROR, CLOSE_NORMAL, chosen_subprotocol, handshake_problem, handshake_response
from .websocket_session import HEARTBEAT_SECONDS, WebSocket, WebSocketClosed, WebSocketSessions

MAX_ADMIN_BODY_BYTES = 16 * 1024 * 1024
# A body with no deadline of its own (admin routes, functions without a timeout) may pause this long.
_DISCARD_TIMEOUT = 60.0
_DISCARD_BYTES = 4 * 1024 * 1024
KEY_MOVED_HEADER = "x-orrery-key-moved"
# ROUTER_CANNOT_RESEND_HEADER in @orrery/sdk.
ROUTER_CANNOT_RESEND_HEADER = "orrery-router-cannot-resend"
_POLL = 0.1


def is_runtime_path(path):
    """Paths the runtime keeps for itself when it shares the port with the function."""
    return path == "/healthz" or path == "/readyz" or path.startswith("/v1/")


class BodyTooLarge(Exception):
    pass


class BodyIncomplete(Exception):
    pass


def read_body(h, max_bytes, deadline=None):
    """The whole request body (Content-Length or chunked), at most `max_bytes`; raises BodyTooLarge,
    BodyIncomplete (the client went away), or TimeoutError when `deadline` (monotonic) passes. A
    chunked body that grows past the cap is read on and dropped (up to as much again, at least
    _DISCARD_BYTES; the Node runtime drops as much again), so the client finishes sending and reads
    the 413: closing a socket with unread data would reset the connection under it."""
    h.connection.settimeout(max(0.001, deadline - time.monotonic()) if deadline is not None else _DISCARD_TIMEOUT)
    try:
        if "chunked" in (h.headers.get("transfer-encoding") or "").lower():
            chunks, size = [], 0
            while True:
                line = h.rfile.readline(65537)
                if not line:
                    raise BodyIncomplete()
                try:
                    n = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise BodyIncomplete() from None
                if n == 0:
                    while h.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    if size > max_bytes:
                        raise BodyTooLarge()
                    return b"".join(chunks)
                size += n
                if size > max_bytes + max(max_bytes, _DISCARD_BYTES):
                    raise BodyTooLarge()
                data = h.rfile.read(n)
                if len(data) < n:
                    raise BodyIncomplete()
                if size <= max_bytes:
                    chunks.append(data)
                else:
                    chunks = []
                h.rfile.readline(3)
        length = int(h.headers.get("content-length") or 0)
        if length > max_bytes:
            raise BodyTooLarge()
        data = h.rfile.read(length) if length > 0 else b""
        if len(data) < length:
            raise BodyIncomplete()
        return data
    finally:
        h.connection.settimeout(None)


def peer_closed(sock):
    """True once the client closed its side (readable with nothing to read); the body is read by then."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        if not readable:
            return False
        return sock.recv(1, socket.MSG_PEEK) == b""
    except (OSError, ValueError):
        return True


def send_json(h, status, body, headers=None, close=False):
    """A JSON answer with its Content-Length; a connection already cut is left alone."""
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    try:
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        if close:
            h.send_header("connection", "close")
            h.close_connection = True
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(data)
    except OSError:
        h.close_connection = True


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.busy = False
        self.server.worker._opened(self)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.worker._closed(self)

    def log_message(self, format, *args):  # noqa: A002 (http.server's name): the worker logs its own records
        pass

    def send_response(self, code, message=None):
        # No Server header (the Node runtime sends none; a version string helps nobody but a scanner).
        self.send_response_only(code, message)
        self.send_header("date", self.date_time_string())

    def handle_one_request(self):
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline, self.request_version, self.command = "", "", ""
                self.send_error(414)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            self.busy = True
            if not self.parse_request():
                return
            self.server.worker._dispatch(self, self.server.role)
            try:
                self.wfile.flush()
            except OSError:
                self.close_connection = True
        except (TimeoutError, ConnectionError, OSError):
            self.close_connection = True
        finally:
            self.busy = False

    def cut(self):
        """Closes the connection under whatever this thread is doing (drain, a failed body)."""
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    request_queue_size = 1024

    def __init__(self, address, worker, role, ipv6):
        self.address_family = socket.AF_INET6 if ipv6 else socket.AF_INET
        self.worker, self.role = worker, role
        super().__init__(address, _Handler)

    def server_bind(self):
        # HTTPServer's own looks up the host's FQDN (a DNS round trip, slow in a pod without DNS).
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[0], self.server_address[1]


class WorkerServer:
    def __init__(self, host, port, admin_port, max_request_bytes, log, ready_without_function=False, specialize=None, admit_specialize=None, now_ms=None, websocket_heartbeat_seconds=HEARTBEAT_SECONDS):
        self.host, self.port, self.admin_port = host, port, admin_port
        self.max_request_bytes = max_request_bytes
        self.log = log
        self.ready_without_function = ready_without_function
        # Handles POST /v1/specialize with the parsed JSON body: (status, body).
        self.specialize_hook = specialize
        # Checks the Authorization header of POST /v1/specialize before the body is read: (status, body) or None.
        self.admit_specialize = admit_specialize
        self._now_ms = now_ms or (lambda: time.time() * 1000.0)
        self.active = None
        self.draining = False
        self.spent = False
        self._pending = 0
        # Set by drain() once it stopped waiting: from then on even a request the router cannot
        # send elsewhere is refused (its connection is about to be cut).
        self._sealed = False
        self._idle = threading.Condition()
        self._meter = ConcurrencyMeter(self._now_ms)
        self._in_flight_meter = ConcurrencyMeter(self._now_ms)
        self._connections = set()
        self._connections_lock = threading.Lock()
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=4096, thread_name_prefix="handler")
        self._loop = None
        self._loop_lock = threading.Lock()
        self.main = None
        self.admin = None
        self._websockets = WebSocketSessions(log, websocket_heartbeat_seconds)

    # --- lifecycle ---------------------------------------------------------------------------

    @property
    def is_ready(self):
        return not self.draining and (self.active is not None or (self.ready_without_function and not self.spent))

    def mark_spent(self):
        """No function will ever come (its specialize nonce is used): /readyz answers 503 `spent`."""
        self.spent = True

    def activate(self, fn):
        self.active = fn

    def forget_warm_up(self):
        """Back to no function, with fresh stats: the warm-up request (pool mode) never counts."""
        self.active = None
        self._meter = ConcurrencyMeter(self._now_ms)
        self._in_flight_meter = ConcurrencyMeter(self._now_ms)

    def listen(self):
        ipv6 = ":" in self.host
        self.main = _Server((self.host, self.port), self, "main" if self.admin_port is None else "function", ipv6)
        if self.admin_port is not None:
            self.admin = _Server((self.host, self.admin_port), self, "admin", ipv6)
        for s in (self.main, self.admin):
            if s is not None:
                threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.05}, name="listener-" + s.role, daemon=True).start()
        shown = "[%s]" % self.host if ipv6 else self.host
        port = self.main.server_address[1]
        admin_port = self.admin.server_address[1] if self.admin else None
        return {
            "url": "http://%s:%d" % (shown, port),
            "adminUrl": None if admin_port is None else "http://%s:%d" % (shown, admin_port),
            "port": port,
            "adminPort": admin_port,
        }

    def drain(self, timeout_seconds):
        """Stops accepting (the listener closes, /readyz answers 503, new requests on open connections
        503 `draining` unless the router says it cannot send them elsewhere), waits for in-flight and queued requests at most `timeout_seconds`, then closes
        every connection. True when everything finished in time."""
        if self.main is not None:
            self.main.shutdown()
            self.main.server_close()
        self.draining = True
        with self._connections_lock:
            idle = [c for c in self._connections if not c.busy and c.server.role != "admin"]
        for c in idle:
            c.cut()
        self._websockets.close_all(CLOSE_GOING_AWAY, "worker draining")
        deadline = time.monotonic() + timeout_seconds
        with self._idle:
            while self._pending > 0:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._idle.wait(left)
            drained = self._pending == 0
            self._sealed = True
        self._websockets.terminate_all()
        with self._connections_lock:
            everyone = list(self._connections)
        for c in everyone:
            c.cut()
        if self.admin is not None:
            self.admin.shutdown()
            self.admin.server_close()
        return drained

    def stats(self):
        fn = self.active
        w = self._meter.last_window()
        f = self._in_flight_meter.last_window()
        return {
            "namespace": fn.namespace if fn else None,
            "function": fn.function if fn else None,
            "revision": fn.revision if fn else None,
            "containerConcurrency": fn.breaker.limit if fn else None,
            "windowSeconds": self._meter.window_ms // 1000 if self._meter.window_ms % 1000 == 0 else self._meter.window_ms / 1000,
            "window": {
                "start": iso_time(w["start"] / 1000.0),
                "end": iso_time(w["end"] / 1000.0),
                "averageConcurrency": w["averageConcurrency"],
                "averageInFlight": f["averageConcurrency"],
                "requestCount": w["requestCount"],
            },
            # An open WebSocket is one of inFlight for as long as it is open.
            "current": {"inFlight": fn.breaker.in_flight if fn else 0, "queued": fn.breaker.queued if fn else 0, "webSockets": self._websockets.size},
            "totalRequests": self._meter.total_requests,
            "ready": self.is_ready,
            "draining": self.draining,
        }

    # --- connections -------------------------------------------------------------------------

    def _opened(self, h):
        with self._connections_lock:
            self._connections.add(h)

    def _closed(self, h):
        with self._connections_lock:
            self._connections.discard(h)

    def _dispatch(self, h, role):
        path = h.path.split("?", 1)[0]
        if role != "admin" and "upgrade" in (h.headers.get("connection") or "").lower() and h.headers.get("upgrade"):
            return self._serve_upgrade(h, runtime_path=role == "main" and is_runtime_path(path))
        if role == "admin" or (role == "main" and is_runtime_path(path)):
            self._serve_admin(h, path)
        else:
            self._serve_function(h, path)

    # --- function traffic --------------------------------------------------------------------

    @staticmethod
    def _refuse_draining(h):
        # The header (WORKER_DRAINING_HEADER in @orrery/sdk) tells the router this request did not run here.
        return send_json(h, 503, {"error": "worker is draining; send the request to another worker", "code": "draining"}, headers={"orrery-worker-draining": "1"}, close=True)

    def _serve_function(self, h, path):
        # A request the router cannot send elsewhere (ROUTER_CANNOT_RESEND_HEADER in @orrery/sdk: its
        # body streams through) runs even while draining; the drain waits for it.
        if self.draining and h.headers.get(ROUTER_CANNOT_RESEND_HEADER) != "1":
            return self._refuse_draining(h)
        fn = self.active
        if fn is None:
            return send_json(h, 503, {"error": "no function loaded yet: this pool worker is waiting for POST /v1/specialize", "code": "not_specialized"}, close=_has_body(h))
        declared = h.headers.get("content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self.max_request_bytes:
            return send_json(h, 413, {"error": "request body of %s bytes exceeds the %d-byte limit" % (declared.strip(), self.max_request_bytes), "code": "payload_too_large"}, close=True)

        deadline = time.monotonic() + fn.timeout_seconds if fn.timeout_seconds > 0 else None
        timeout_answer = {"error": "no response within the function's timeout (%g s)" % fn.timeout_seconds, "code": "timeout"}
        with self._idle:
            sealed = self._sealed
            if not sealed:
                self._pending += 1
        if sealed:
            return self._refuse_draining(h)
        self._meter.arrive()
        state = {"release": None, "in_flight": False, "done": False}

        def done():
            if state["done"]:
                return
            state["done"] = True
            # The slot is held until the handler has settled, even after a 504: it protects the process.
            if state["release"]:
                state["release"]()
            if state["in_flight"]:
                self._in_flight_meter.depart()
            self._meter.depart()
            with self._idle:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.notify_all()

        deferred = False
        try:
            try:
                body = read_body(h, self.max_request_bytes, deadline)
            except BodyTooLarge:
                return send_json(h, 413, {"error": "request body exceeds the %d-byte limit" % self.max_request_bytes, "code": "payload_too_large"}, close=True)
            except (TimeoutError, socket.timeout):  # one class since Python 3.10
                return send_json(h, 504, timeout_answer, close=True)
            except (BodyIncomplete, OSError, ValueError):
                h.close_connection = True
                return
            try:
                state["release"] = fn.breaker.acquire(deadline, cancelled=lambda: peer_closed(h.connection))
            except BreakerError as e:
                if e.code == "queue_full":
                    return send_json(h, 503, {"error": str(e), "code": "queue_full"})
                if e.code == "timeout":
                    return send_json(h, 504, timeout_answer, close=True)
                h.close_connection = True  # cancelled: the client went away while queued
                return
            self._in_flight_meter.arrive()
            state["in_flight"] = True
            cancelled = threading.Event()
            request = Request(h.command, h.path, Headers(h.headers.items()), body, cancelled)
            ctx = fn.ctx.for_request(h.headers.get("traceparent"), h.headers.get("tracestate"))
            # The router marks the first request of a sticky key that moved here: ctx.state claims a
            # new fence before each key's next write (docs/state.md "Fencing").
            if h.headers.get(KEY_MOVED_HEADER) == "1" and ctx.state is not None:
                ctx.state.key_moved()
            # A replayable invocation (Orrery-Invocation-Id): ctx.state becomes a copy numbering this run's calls.
            ctx = bind_invocation(ctx, h.headers.get_all(INVOCATION_ID_HEADER), fn.timeout_seconds)
            fut = self._invoke(fn, request, ctx)
            outcome = self._wait(fut, deadline, h, cancelled)
            if outcome == "timeout":
                cancelled.set()
                fut.cancel()
                # Closing the connection: nothing more is read from it.
                send_json(h, 504, timeout_answer, close=True)
                fut.add_done_callback(lambda _f: done())
                deferred = True
                return
            if outcome == "gone":
                h.close_connection = True
                fut.add_done_callback(lambda _f: done())
                deferred = True
                return
            self._answer(fn, h, fut, cancelled)
        finally:
            if not deferred:
                done()

    def _serve_upgrade(self, h, runtime_path):
        """A WebSocket handshake: one request for the breaker, the meters and the drain, from its
        arrival until the connection closes. Over the limit it waits in the same FIFO queue (503
        `queue_full` when that is full); `timeoutSeconds` bounds the time to the 101 (504 `timeout`),
        never an open connection (the Node runtime's serveUpgrade)."""
        fn = self.active
        loaded = fn.loaded if fn else None
        refused = refuse_handshake(runtime_path, self.draining, fn is not None, loaded is not None and loaded.websocket is not None, "%s/%s" % (fn.namespace, fn.function) if fn else "", h.headers.get("upgrade"))
        if refused:
            return send_json(h, refused[0], refused[1], close=True)
        problem = handshake_problem(h.command, h.headers)
        if problem:
            return send_json(h, 400, {"error": problem, "code": "bad_handshake"}, {"sec-websocket-version": "13"}, close=True)
        h.close_connection = True  # whatever happens, nothing more is read as HTTP from this connection
        deadline = time.monotonic() + fn.timeout_seconds if fn.timeout_seconds > 0 else None
        with self._idle:
            self._pending += 1
        self._meter.arrive()
        release = None
        try:
            try:
                release = fn.breaker.acquire(deadline, cancelled=lambda: peer_closed(h.connection))
            except BreakerError as e:
                if e.code == "queue_full":
                    send_json(h, 503, {"error": str(e), "code": "queue_full"}, close=True)
                elif e.code == "timeout":
                    send_json(h, 504, {"error": "no slot for the WebSocket within the function's timeout (%g s)" % fn.timeout_seconds, "code": "timeout"}, close=True)
                return
            if self.draining:
                return self._refuse_draining(h)
            self._in_flight_meter.arrive()
            try:
                self._run_websocket(h, fn, loaded.websocket)
            finally:
                self._in_flight_meter.depart()
        finally:
            if release:
                release()
            self._meter.depart()
            with self._idle:
                self._pending -= 1
                if self._pending == 0:
                    self._idle.notify_all()

    def _run_websocket(self, h, fn, websocket):
        """Switches the connection, runs the handler on the pool, and reads on this thread until the
        connection ends. The handler returning closes the socket with 1000, raising with 1011."""
        subprotocol = chosen_subprotocol(h.headers.get("sec-websocket-protocol"))
        try:
            h.wfile.write(handshake_response(h.headers.get("sec-websocket-key").strip(), subprotocol))
        except OSError:
            return
        sock = WebSocket(h.connection, h.rfile, self.max_request_bytes, protocol=subprotocol, on_closed=self._websockets.forget)
        self._websockets.track(sock)
        if self.draining:
            # The drain began between the check and the 101: its close_all did not see this socket.
            sock._send_close(CLOSE_GOING_AWAY, "worker draining")
        cancelled = threading.Event()
        request = Request(h.command, h.path, Headers(h.headers.items()), b"", cancelled)
        ctx = bind_invocation(fn.ctx.for_request(h.headers.get("traceparent"), h.headers.get("tracestate")), h.headers.get_all(INVOCATION_ID_HEADER), fn.timeout_seconds)
        flog = fn.ctx.log
        args = (sock, request, ctx)[: positional_arity(websocket, 3)]

        def call():
            try:
                websocket(*args)
                sock._send_close(CLOSE_NORMAL, "")
            except WebSocketClosed:
                pass  # it sent on a socket the peer had closed: nothing to report
            except BaseException as e:  # noqa: BLE001 (the function's error, whatever it is)
                flog.error("websocket handler threw", {"error": function_traceback(e)})
                sock._send_close(CLOSE_INTERNAL_ERROR, "the function failed")

        self._pool.submit(call)
        try:
            sock.run()
        finally:
            cancelled.set()
            self._websockets.forget(sock)

    def _invoke(self, fn, request, ctx):
        loaded = fn.loaded
        args = (request, ctx) if loaded.wants_ctx else (request,)
        if loaded.is_async:
            import asyncio

            return asyncio.run_coroutine_threadsafe(loaded.handler(*args), self._event_loop())

        def call():
            result = loaded.handler(*args)
            if hasattr(result, "__await__") and hasattr(result, "send"):
                import asyncio

                return asyncio.run_coroutine_threadsafe(result, self._event_loop()).result()
            return result

        return self._pool.submit(call)

    def _wait(self, fut, deadline, h, cancelled):
        """'done', 'timeout' (no result by the deadline) or 'gone' (the client closed the connection)."""
        while True:
            left = _POLL if deadline is None else min(_POLL, deadline - time.monotonic())
            if left <= 0:
                return "done" if fut.done() else "timeout"
            try:
                fut.result(timeout=left)
                return "done"
            except concurrent.futures.TimeoutError:
                if fut.done():
                    return "done"  # the handler's own TimeoutError
            except BaseException:
                return "done"
            if peer_closed(h.connection):
                cancelled.set()
                fut.cancel()
                return "gone"

    def _answer(self, fn, h, fut, cancelled):
        flog = fn.ctx.log
        try:
            result = fut.result()
        except BaseException as e:  # noqa: BLE001 (the function's error, whatever it is, becomes the 500)
            flog.error("handler threw", {"error": function_traceback(e)})
            return send_json(h, 500, {"error": "the function threw an error; see the worker log", "code": "handler_error"})
        try:
            response = to_response(result)
        except InvalidResponse as e:
            flog.error("handler did not return a Response", {"got": str(e)})
            return send_json(h, 500, {"error": "the function returned something other than a Response", "code": "invalid_response"})
        self._write_response(h, response, flog, cancelled)

    def _write_response(self, h, response, flog, cancelled):
        head_only = h.command == "HEAD"
        body = response.body
        user_length = response.headers.get("content-length")
        try:
            h.send_response(response.status)
            for name, value in response.headers.items():
                # orrery-worker-draining is the runtime's own "not run here" signal: from a function it
                # would make the router send a request that ran to another worker.
                if name.lower() in ("connection", "transfer-encoding", "keep-alive", "orrery-worker-draining") or (name.lower() == "content-length" and not response.streamed):
                    continue
                h.send_header(name, value)
            chunked = response.streamed and user_length is None
            if not response.streamed:
                h.send_header("content-length", str(len(body)))
            elif chunked and not head_only:
                h.send_header("transfer-encoding", "chunked")
            if self.draining or h.close_connection:
                h.send_header("connection", "close")
                h.close_connection = True
            h.end_headers()
            if head_only:
                _close_iterator(body)
                return
            if not response.streamed:
                h.wfile.write(body)
                return
        except OSError:
            h.close_connection = True
            _close_iterator(body)
            return
        it = _ChunkSource(body, self)
        try:
            while True:
                chunk = it.next(h, cancelled)
                if chunk is _END:
                    break
                if not chunk:
                    continue
                h.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            if chunked:
                h.wfile.write(b"0\r\n\r\n")
        except _ClientGone:
            # The body's next chunk is still being made on another thread: it is left to finish there.
            h.close_connection = True
        except OSError:
            h.close_connection = True
            it.close()
        except BaseException as e:  # noqa: BLE001 (the body's generator failed after the head was sent)
            flog.warn("response body failed after the head was sent; connection cut", {"error": "%s: %s" % (type(e).__name__, e)})
            h.close_connection = True
            h.cut()

    def _event_loop(self):
        """One event loop for every async handler, on its own thread, made on first use."""
        with self._loop_lock:
            if self._loop is None:
                import asyncio

                loop = asyncio.new_event_loop()
                loop.set_exception_handler(lambda _l, c: self.log.error("unhandled exception in function code", {"error": str(c.get("exception") or c.get("message"))}))
                threading.Thread(target=loop.run_forever, name="event-loop", daemon=True).start()
                self._loop = loop
            return self._loop

    # --- runtime routes ----------------------------------------------------------------------

    def _serve_admin(self, h, path):
        try:
            method = h.command
            routes = {"/healthz": ("GET", self._healthz), "/readyz": ("GET", self._readyz), "/v1/stats": ("GET", self._stats), "/v1/specialize": ("POST", self._specialize)}
            route = routes.get(path)
            if route is None:
                return send_json(h, 404, {"error": "no runtime route %s (runtime routes: /healthz, /readyz, /v1/stats, /v1/specialize)" % path, "code": "not_found"}, close=_has_body(h))
            if route[0] != method:
                return send_json(h, 405, {"error": "%s is not allowed on %s" % (method, path), "code": "method_not_allowed"}, close=_has_body(h))
            return route[1](h)
        except Exception as e:  # noqa: BLE001
            self.log.error("runtime route failed", {"route": "%s %s" % (h.command, path), "error": str(e)})
            return send_json(h, 500, {"error": "internal error", "code": "internal"}, close=True)

    def _healthz(self, h):
        send_json(h, 200, {"status": "ok"}, close=_has_body(h))

    def _readyz(self, h):
        if self.is_ready:
            return send_json(h, 200, {"status": "ready", "specialized": self.active is not None}, close=_has_body(h))
        send_json(h, 503, {"status": "draining" if self.draining else ("spent" if self.spent else "loading")}, close=_has_body(h))

    def _stats(self, h):
        send_json(h, 200, self.stats(), close=_has_body(h))

    def _specialize(self, h):
        if self.specialize_hook is None:
            return send_json(h, 409, {"error": "this worker runs in deploy mode; only pool workers can be specialized", "code": "not_pool_worker"}, close=_has_body(h))
        if self.draining:
            return send_json(h, 503, {"error": "worker is draining", "code": "draining"}, close=_has_body(h))
        refused = self.admit_specialize(h.headers.get("authorization")) if self.admit_specialize else None
        if refused:
            status, body = refused
            # The body is left unread: the connection closes with the answer.
            return send_json(h, status, body, {"www-authenticate": "Bearer"} if status == 401 else None, close=True)
        try:
            raw = read_body(h, MAX_ADMIN_BODY_BYTES)
        except BodyTooLarge:
            return send_json(h, 413, {"error": "request body is larger than %d bytes" % MAX_ADMIN_BODY_BYTES, "code": "payload_too_large"}, close=True)
        except (BodyIncomplete, OSError, ValueError):
            return send_json(h, 400, {"error": "the request body ended before it was complete (the connection was closed)", "code": "bad_request"}, close=True)
        try:
            value = json.loads(raw.decode("utf-8"))
        except ValueError:
            return send_json(h, 400, {"error": "request body is not valid JSON", "code": "bad_request"})
        status, body = self.specialize_hook(value)
        send_json(h, status, body)


_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
_PLUMBING = (os.sep + "concurrent" + os.sep + "futures" + os.sep, os.sep + "asyncio" + os.sep)


def function_traceback(e):
    """The traceback of a handler's exception without the runtime's own frames (thread pool, event loop)."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not f.filename.startswith(_RUNTIME_DIR) and not any(p in f.filename for p in _PLUMBING)]
    return ("Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) if frames else "") + "".join(traceback.format_exception_only(type(e), e)).rstrip()


def _has_body(h):
    """A request whose body the answer leaves unread: its connection closes with the answer."""
    length = h.headers.get("content-length")
    return (length is not None and length.strip() not in ("", "0")) or "chunked" in (h.headers.get("transfer-encoding") or "").lower()


_END = object()


class _ClientGone(Exception):
    pass


class _ChunkSource:
    """A streamed body's chunks as bytes, each made on the handler pool (or the event loop) while this
    thread watches the connection: a client that goes away sets request.cancelled and stops the
    writing at once, as the Node runtime cancels a stream whose client left."""

    def __init__(self, body, server):
        self.server = server
        self.is_async = hasattr(body, "__aiter__")
        self.it = body.__aiter__() if self.is_async else iter(body)

    def next(self, h, cancelled):
        if self.is_async:
            import asyncio

            async def step():
                try:
                    return await self.it.__anext__()
                except StopAsyncIteration:
                    return _END

            fut = asyncio.run_coroutine_threadsafe(step(), self.server._event_loop())
        else:
            fut = self.server._pool.submit(next, self.it, _END)
        while True:
            try:
                chunk = fut.result(timeout=_POLL)
                break
            except concurrent.futures.TimeoutError:
                if fut.done():
                    chunk = fut.result()
                    break
            if peer_closed(h.connection):
                cancelled.set()
                fut.cancel()
                raise _ClientGone()
        if chunk is _END:
            return _END
        return chunk.encode() if isinstance(chunk, str) else bytes(chunk)

    def close(self):
        _close_iterator(self.it)


def _close_iterator(body):
    close = getattr(body, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001
            pass
