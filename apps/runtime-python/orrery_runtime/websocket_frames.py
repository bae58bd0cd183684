"""RFC 6455 on the server side, as pure functions over bytes (the Python runtime's stand-in for the `ws`
package the Node runtime uses): the handshake's accept key and checks, frame encoding, and an
incremental reader that turns a client's bytes into whole messages and control frames — masking
required, fragmentation, the message size cap, UTF-8 validation of text, and the close code each
violation earns (1002 protocol error, 1007 invalid data, 1009 too big). No I/O here."""
import base64
import binascii
import codecs
import hashlib
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

OP_CONTINUATION, OP_TEXT, OP_BINARY = 0x0, 0x1, 0x2
OP_CLOSE, OP_PING, OP_PONG = 0x8, 0x9, 0xA

CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_PROTOCOL_ERROR = 1002
CLOSE_NO_STATUS = 1005  # never on the wire: a close frame without a code
CLOSE_ABNORMAL = 1006  # never on the wire: the connection ended without a close frame
CLOSE_INVALID_DATA = 1007
CLOSE_TOO_BIG = 1009
CLOSE_INTERNAL_ERROR = 1011

MAX_CONTROL_PAYLOAD = 125


class ProtocolViolation(Exception):
    """The peer broke the protocol: close the connection with `code` (and `reason`)."""

    def __init__(self, code, reason):
        super().__init__(reason)
        self.code, self.reason = code, reason


def accept_key(key):
    """Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (RFC 6455 §4.2.2)."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")


def handshake_problem(method, headers):
    """Why a handshake the worker admitted cannot be completed (the checks `ws` makes), or None.
    `headers`: anything with get(name). The answer is a 400 with `code` bad_handshake."""
    if method != "GET":
        return "a WebSocket handshake must be a GET request (this one was %s)" % method
    key = (headers.get("sec-websocket-key") or "").strip()
    try:
        valid_key = len(base64.b64decode(key, validate=True)) == 16
    except (binascii.Error, ValueError):
        valid_key = False
    if not valid_key:
        return "missing or invalid Sec-WebSocket-Key header (it must be 16 random bytes in base64)"
    version = (headers.get("sec-websocket-version") or "").strip()
    if version not in ("13", "8"):
        return "unsupported Sec-WebSocket-Version %r (this worker speaks 13)" % version
    return None


def chosen_subprotocol(offered):
    """The first subprotocol the client offers in Sec-WebSocket-Protocol (ws' default), or None."""
    for token in (offered or "").split(","):
        if token.strip():
            return token.strip()
    return None


def handshake_response(key, subprotocol=None):
    """The 101 head that switches the connection."""
    lines = ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: " + accept_key(key)]
    if subprotocol:
        lines.append("Sec-WebSocket-Protocol: " + subprotocol)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def encode_frame(opcode, payload=b"", fin=True, mask=None):
    """One frame. A server never masks; `mask` (4 bytes) is for tests that play the client."""
    payload = bytes(payload)
    first = (0x80 if fin else 0) | opcode
    n = len(payload)
    mask_bit = 0x80 if mask is not None else 0
    if n < 126:
        head = struct.pack("!BB", first, mask_bit | n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", first, mask_bit | 126, n)
    else:
        head = struct.pack("!BBQ", first, mask_bit | 127, n)
    if mask is None:
        return head + payload
    return head + bytes(mask) + apply_mask(payload, mask)


def apply_mask(data, mask):
    """XOR with the 4-byte key (masking and unmasking are the same), fast through int arithmetic."""
    n = len(data)
    if n == 0:
        return b""
    key = (bytes(mask) * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


def close_payload(code, reason=""):
    """A close frame's body: the code and a UTF-8 reason cut to fit a control frame."""
    if code is None or code == CLOSE_NO_STATUS:
        return b""
    raw = reason.encode("utf-8")[: MAX_CONTROL_PAYLOAD - 2]
    # Cutting may have split a character: drop its leftover bytes.
    raw = raw.decode("utf-8", "ignore").encode("utf-8")
    return struct.pack("!H", code) + raw


def is_valid_close_code(code):
    """Codes a peer may send (RFC 6455 §7.4): 1000-1003, 1007-1014 (ws' list), and 3000-4999."""
    return code in (1000, 1001, 1002, 1003) or 1007 <= code <= 1014 or 3000 <= code <= 4999


def parse_close_payload(payload):
    """(code, reason) of a peer's close frame; (1005, "") when it has no code. Raises ProtocolViolation."""
    if len(payload) == 0:
        return CLOSE_NO_STATUS, ""
    if len(payload) == 1:
        raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "close frame with a 1-byte payload")
    code = struct.unpack("!H", payload[:2])[0]
    if not is_valid_close_code(code):
        raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "invalid close code %d" % code)
    try:
        reason = payload[2:].decode("utf-8")
    except UnicodeDecodeError:
        raise ProtocolViolation(CLOSE_INVALID_DATA, "close reason is not valid UTF-8") from None
    return code, reason


class FrameReader:
    """Feed it the client's bytes as they come; `events()` yields what they complete, in order:
    ("text", str), ("binary", bytes), ("ping", bytes), ("pong", bytes), ("close", (code, reason)).
    A violation raises ProtocolViolation (the connection is then unusable: close with its code)."""

    def __init__(self, max_message_bytes):
        self.max_message_bytes = max_message_bytes
        self._buf = bytearray()
        self._message_opcode = None  # the data opcode of a fragmented message in progress
        self._parts = []
        self._size = 0
        self._utf8 = None

    def feed(self, data):
        self._buf += data

    def events(self):
        while True:
            frame = self._next_frame()
            if frame is None:
                return
            event = self._on_frame(*frame)
            if event is not None:
                yield event

    def _next_frame(self):
        buf = self._buf
        if len(buf) < 2:
            return None
        b0, b1 = buf[0], buf[1]
        if b0 & 0x70:
            raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "RSV bits set without a negotiated extension")
        fin, opcode = bool(b0 & 0x80), b0 & 0x0F
        if not b1 & 0x80:
            raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "client frames must be masked")
        n, at = b1 & 0x7F, 2
        if opcode >= 0x8:
            if opcode not in (OP_CLOSE, OP_PING, OP_PONG):
                raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "unknown opcode 0x%x" % opcode)
            if not fin:
                raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "fragmented control frame")
            if n > MAX_CONTROL_PAYLOAD:
                raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "control frame payload over 125 bytes")
        elif opcode not in (OP_CONTINUATION, OP_TEXT, OP_BINARY):
            raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "unknown opcode 0x%x" % opcode)
        if n == 126:
            if len(buf) < 4:
                return None
            n, at = struct.unpack_from("!H", buf, 2)[0], 4
        elif n == 127:
            if len(buf) < 10:
                return None
            n, at = struct.unpack_from("!Q", buf, 2)[0], 10
            if n >> 63:
                raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "frame length with the most significant bit set")
        # Checked on the header, before the payload is buffered: a 2^62-byte claim costs nothing.
        if opcode < 0x8 and self._size + n > self.max_message_bytes:
            raise ProtocolViolation(CLOSE_TOO_BIG, "message larger than %d bytes" % self.max_message_bytes)
        if len(buf) < at + 4 + n:
            return None
        mask = bytes(buf[at : at + 4])
        payload = apply_mask(bytes(buf[at + 4 : at + 4 + n]), mask)
        del buf[: at + 4 + n]
        return fin, opcode, payload

    def _on_frame(self, fin, opcode, payload):
        if opcode == OP_PING:
            return ("ping", payload)
        if opcode == OP_PONG:
            return ("pong", payload)
        if opcode == OP_CLOSE:
            return ("close", parse_close_payload(payload))
        if opcode == OP_CONTINUATION:
            if self._message_opcode is None:
                raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "continuation frame without a message to continue")
        else:
            if self._message_opcode is not None:
                raise ProtocolViolation(CLOSE_PROTOCOL_ERROR, "new message before the fragmented one finished")
            self._message_opcode = opcode
            self._utf8 = codecs.getincrementaldecoder("utf-8")() if opcode == OP_TEXT else None
        self._size += len(payload)
        if self._utf8 is not None:
            # Fragment by fragment, so a bad byte fails at once rather than after the whole message.
            try:
                self._parts.append(self._utf8.decode(payload, final=fin))
            except UnicodeDecodeError:
                raise ProtocolViolation(CLOSE_INVALID_DATA, "text message is not valid UTF-8") from None
        else:
            self._parts.append(payload)
        if not fin:
            return None
        kind = "text" if self._message_opcode == OP_TEXT else "binary"
        message = ("" if kind == "text" else b"").join(self._parts)
        self._message_opcode, self._parts, self._size, self._utf8 = None, [], 0, None
        return (kind, message)
