"""One open WebSocket connection (the `socket` a function's `websocket(socket, request, ctx)` gets) and
the worker's set of them, with the Node runtime's behaviour (apps/runtime/src/websocket/websocket-sessions.ts):
pings answered, a close echoed, violations closed with their code, a heartbeat that cuts a peer that
stopped answering pings, 1001 to everyone on drain.

Threads: the connection's own thread reads (run()); the handler runs on the handler pool and blocks in
receive(); sends from either are serialized by a lock."""
import collections
import socket
import threading
import time

from .websocket_frames import (
    CLOSE_ABNORMAL,
    CLOSE_NO_STATUS,
    CLOSE_NORMAL,
    OP_BINARY,
    OP_CLOSE,
    OP_PING,
    OP_PONG,
    OP_TEXT,
    FrameReader,
    ProtocolViolation,
    close_payload,
    encode_frame,
)

HEARTBEAT_SECONDS = 30.0
# How long a close frame we sent may wait for the peer's (ws' closeTimeout).
CLOSE_TIMEOUT_SECONDS = 30.0
# After a protocol violation the peer's remaining bytes are read and dropped this long, so it reads our close.
_LINGER_SECONDS = 2.0
# Messages read but not yet received by the handler; beyond this the reading stops (TCP backpressure).
INBOX_MESSAGES = 16


class WebSocketClosed(ConnectionError):
    """send() or ping() on a socket that is closing or closed."""


class WebSocket:
    """What a handler holds: receive() / iteration, send(str | bytes), ping(), close(code, reason),
    and `closed`, `close_code`, `close_reason`, `protocol` (the accepted subprotocol or None)."""

    def __init__(self, sock, rfile, max_message_bytes, protocol=None, on_closed=None, close_timeout=CLOSE_TIMEOUT_SECONDS):
        self._sock, self._rfile = sock, rfile
        self._reader = FrameReader(max_message_bytes)
        self.protocol = protocol
        self._on_closed = on_closed
        self._close_timeout = close_timeout
        self._send_lock = threading.Lock()
        self._inbox = collections.deque()
        self._inbox_cond = threading.Condition()
        self._close_sent = False
        self._finished = False
        self._close_timer = None
        self.close_code = None
        self.close_reason = ""
        # Heartbeat: set by a pong; a reader held back by a full inbox counts as alive (it cannot read pongs).
        self.alive = True
        self.held_back = False

    # --- the handler's side ------------------------------------------------------------------

    @property
    def closed(self):
        """True once a close frame was sent or received, or the connection ended."""
        return self._close_sent or self._finished

    def receive(self, timeout=None):
        """The next message (str for text, bytes for binary), or None once the socket has closed and
        every message before that was received. Raises TimeoutError after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._inbox_cond:
            while not self._inbox:
                if self._finished:
                    return None
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError("no WebSocket message within %g s" % timeout)
                self._inbox_cond.wait(left)
            message = self._inbox.popleft()
            self._inbox_cond.notify_all()
            return message

    def __iter__(self):
        while True:
            message = self.receive()
            if message is None:
                return
            yield message

    def send(self, data):
        """A text message for a str, a binary one for bytes, bytearray or memoryview."""
        if isinstance(data, str):
            self._send_data(OP_TEXT, data.encode("utf-8"))
        elif isinstance(data, (bytes, bytearray, memoryview)):
            self._send_data(OP_BINARY, bytes(data))
        else:
            raise TypeError("socket.send() takes str (text) or bytes (binary), not %s" % type(data).__name__)

    def ping(self, data=b""):
        data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if len(data) > 125:
            raise ValueError("a ping carries at most 125 bytes")
        self._send_data(OP_PING, data)

    def close(self, code=CLOSE_NORMAL, reason=""):
        """Starts the closing handshake (the connection ends when the peer answers, or after 30 s).
        Codes a function may use: 1000 and 3000-4999 (ws allows the same)."""
        if not (code == CLOSE_NORMAL or 3000 <= code <= 4999):
            raise ValueError("close code must be 1000 or in 3000-4999, got %r" % (code,))
        if len(reason.encode("utf-8")) > 123:
            raise ValueError("a close reason is at most 123 bytes of UTF-8")
        self._send_close(code, reason)

    # --- the runtime's side ------------------------------------------------------------------

    def _send_data(self, opcode, payload):
        if self.closed:
            raise WebSocketClosed("the WebSocket is closed (code %s)" % (self.close_code or "pending"))
        try:
            self._write(encode_frame(opcode, payload), check_open=True)
        except OSError as e:
            raise WebSocketClosed("the WebSocket connection is gone: %s" % e) from None

    def _write(self, frame, check_open=False):
        with self._send_lock:
            if check_open and self._close_sent:
                raise WebSocketClosed("the WebSocket is closing")
            self._sock.sendall(frame)

    def _send_close(self, code, reason, wait_for_peer=True):
        """Our close frame, once; the peer has close_timeout to answer before the connection is cut."""
        with self._send_lock:
            if self._close_sent or self._finished:
                return
            self._close_sent = True
            if self.close_code is None:
                self.close_code, self.close_reason = code, reason
            try:
                self._sock.sendall(encode_frame(OP_CLOSE, close_payload(code, reason)))
            except OSError:
                pass
        if wait_for_peer:
            self._close_timer = threading.Timer(self._close_timeout, self.terminate)
            self._close_timer.daemon = True
            self._close_timer.start()

    def heartbeat_ping(self):
        """Never blocks the heartbeat (it serves every socket): skipped while a send holds the lock or
        the peer's receive window is full, so the pong does not come and the next beat decides."""
        if not self._send_lock.acquire(blocking=False):
            return
        try:
            if self._close_sent:
                return
            frame = encode_frame(OP_PING, b"")
            try:
                sent = self._sock.send(frame, socket.MSG_DONTWAIT)
            except BlockingIOError:
                sent = 0
            except OSError:
                sent = -1
        finally:
            self._send_lock.release()
        if sent not in (0, len(frame)):
            self.terminate()  # half a frame on the wire: the stream cannot go on

    def terminate(self):
        """Cuts the connection at once (no close handshake): the reading ends, receive() returns None."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def run(self):
        """Reads until the connection ends; on the connection's own thread. Returns the close code."""
        try:
            while not self._finished:
                data = self._rfile.read1(65536)
                if not data:
                    break
                self._reader.feed(data)
                if self._take(self._reader.events()):
                    break
        except ProtocolViolation as v:
            self._send_close(v.code, v.reason, wait_for_peer=False)
            self._linger()
        except (OSError, ValueError):
            pass
        finally:
            self._finish()
        return self.close_code

    def _take(self, events):
        """Handles what the bytes completed; True when the peer's close frame ended the connection."""
        for kind, value in events:
            if kind in ("text", "binary"):
                if not self._close_sent:
                    self._deliver(value)
            elif kind == "ping":
                if not self._close_sent:
                    try:
                        self._write(encode_frame(OP_PONG, value))
                    except OSError:
                        return True
            elif kind == "pong":
                self.alive = True
            elif kind == "close":
                code, reason = value
                # Our close answered (we keep our code), or theirs echoed with its code and reason (as ws does).
                if not self._close_sent:
                    self.close_code, self.close_reason = code, reason
                    self._send_close(code if code != CLOSE_NO_STATUS else None, reason, wait_for_peer=False)
                return True
        return False

    def _deliver(self, message):
        with self._inbox_cond:
            while len(self._inbox) >= INBOX_MESSAGES and not self._finished and not self._close_sent:
                self.held_back = True
                self._inbox_cond.wait(1.0)
            self.held_back = False
            self._inbox.append(message)
            self._inbox_cond.notify_all()

    def _linger(self):
        """Reads and drops what the peer still sends until it closes, briefly: it gets to read our close."""
        deadline = time.monotonic() + _LINGER_SECONDS
        try:
            while time.monotonic() < deadline:
                self._sock.settimeout(max(0.01, deadline - time.monotonic()))
                if not self._sock.recv(65536):
                    return
        except OSError:
            pass

    def _finish(self):
        if self._close_timer is not None:
            self._close_timer.cancel()
        with self._inbox_cond:
            if self._finished:
                return
            self._finished = True
            if self.close_code is None:
                self.close_code = CLOSE_ABNORMAL
            self._inbox_cond.notify_all()
        if self._on_closed is not None:
            self._on_closed(self)


class WebSocketSessions:
    """The worker's open sockets: their count for /v1/stats, the heartbeat, and the drain's 1001."""

    def __init__(self, log, heartbeat_seconds=HEARTBEAT_SECONDS):
        self.log = log
        self.heartbeat_seconds = heartbeat_seconds
        self._open = set()
        self._lock = threading.Lock()
        self._beating = False

    @property
    def size(self):
        with self._lock:
            return len(self._open)

    def track(self, ws):
        with self._lock:
            self._open.add(ws)
            start = not self._beating and self.heartbeat_seconds > 0
            self._beating = self._beating or start
        if start:
            threading.Thread(target=self._heartbeat, name="websocket-heartbeat", daemon=True).start()

    def forget(self, ws):
        with self._lock:
            self._open.discard(ws)

    def close_all(self, code, reason):
        """Drain: a close frame to every open socket (each closes once its peer answers)."""
        for ws in self._snapshot():
            ws._send_close(code, reason)

    def terminate_all(self):
        for ws in self._snapshot():
            ws.terminate()

    def _snapshot(self):
        with self._lock:
            return list(self._open)

    def _heartbeat(self):
        # Every period each socket is pinged; one that did not answer the previous ping is cut, so a
        # peer that vanished without a close frees its concurrency slot within two periods.
        while True:
            time.sleep(self.heartbeat_seconds)
            for ws in self._snapshot():
                if not ws.alive and not ws.held_back:
                    self.log.info("websocket peer did not answer a ping; connection terminated", {"heartbeatMs": int(self.heartbeat_seconds * 1000)})
                    ws.terminate()
                    continue
                ws.alive = False
                ws.heartbeat_ping()
