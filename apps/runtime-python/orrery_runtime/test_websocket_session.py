import socket
import struct
import threading
import time
import unittest

from . import websocket_session
from .websocket_frames import close_payload, encode_frame
from .websocket_session import WebSocket, WebSocketClosed, WebSocketSessions

MASK = b"\x01\x02\x03\x04"


class _Log:
    def __init__(self):
        self.records = []

    def info(self, msg, fields=None):
        self.records.append((msg, fields))


class _Peer:
    """The client's end of a socketpair: sends masked frames, reads the server's unmasked ones."""

    def __init__(self, sock):
        self.sock = sock
        self.sock.settimeout(5)

    def send(self, opcode, payload=b"", fin=True):
        self.sock.sendall(encode_frame(opcode, payload, fin=fin, mask=MASK))

    def _exactly(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError("the server closed the connection")
            data += chunk
        return data

    def frame(self):
        b0, b1 = self._exactly(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._exactly(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._exactly(8))[0]
        return b0 & 0x0F, self._exactly(n)

    def at_eof(self):
        try:
            return self.sock.recv(1) == b""
        except OSError:
            return True


def open_pair(max_bytes=1 << 20, **kw):
    server, client = socket.socketpair()
    ws = WebSocket(server, server.makefile("rb"), max_bytes, **kw)
    result = {}
    reader = threading.Thread(target=lambda: result.setdefault("code", ws.run()), daemon=True)
    reader.start()
    return ws, _Peer(client), reader, result


class WebSocketTest(unittest.TestCase):
    def test_receive_send_ping_and_the_peers_close_echoed(self):
        ws, peer, reader, result = open_pair(protocol="chat")
        peer.send(0x1, "héllo".encode())
        peer.send(0x2, b"\x00\x01")
        self.assertEqual((ws.receive(timeout=2), ws.receive(timeout=2), ws.protocol), ("héllo", b"\x00\x01", "chat"))
        with self.assertRaises(TimeoutError):
            ws.receive(timeout=0.05)
        ws.send("text")
        ws.send(b"bin")
        ws.ping("p")
        self.assertEqual([peer.frame() for _ in range(3)], [(0x1, b"text"), (0x2, b"bin"), (0x9, b"p")])
        peer.send(0x9, b"are you there")
        self.assertEqual(peer.frame(), (0xA, b"are you there"))
        with self.assertRaises(TypeError):
            ws.send(42)
        peer.send(0x1, b"last")
        peer.send(0x8, close_payload(4001, "done"))
        self.assertEqual(peer.frame(), (0x8, close_payload(4001, "done")))
        reader.join(2)
        self.assertEqual((result["code"], ws.close_code, ws.close_reason, ws.closed), (4001, 4001, "done", True))
        # Messages read before the close are still received, then None; iteration ends.
        self.assertEqual(list(ws), ["last"])
        self.assertIsNone(ws.receive())
        with self.assertRaises(WebSocketClosed):
            ws.send("too late")

    def test_a_close_without_a_code_is_echoed_without_one(self):
        ws, peer, reader, result = open_pair()
        peer.send(0x8)
        self.assertEqual(peer.frame(), (0x8, b""))
        reader.join(2)
        self.assertEqual(result["code"], 1005)

    def test_the_function_closes_and_the_peer_answers(self):
        ws, peer, reader, result = open_pair()
        with self.assertRaises(ValueError):
            ws.close(1001)
        with self.assertRaises(ValueError):
            ws.close(1000, "x" * 124)
        ws.close(4000, "asked to leave")
        self.assertEqual(peer.frame(), (0x8, close_payload(4000, "asked to leave")))
        self.assertTrue(ws.closed)
        with self.assertRaises(WebSocketClosed):
            ws.send("after close")
        # Data the peer sent before it saw our close is dropped; its close ends the connection.
        peer.send(0x1, b"in flight")
        peer.send(0x8, close_payload(4000))
        reader.join(2)
        self.assertFalse(reader.is_alive())
        self.assertEqual((result["code"], ws.receive()), (4000, None))

    def test_a_peer_that_never_answers_our_close_is_cut_after_the_close_timeout(self):
        ws, peer, reader, result = open_pair(close_timeout=0.2)
        ws.close()
        self.assertEqual(peer.frame()[0], 0x8)
        reader.join(2)
        self.assertFalse(reader.is_alive())
        self.assertEqual(result["code"], 1000)

    def test_a_violation_sends_its_close_code_and_ends_the_connection(self):
        for frame, code in ((encode_frame(0x1, b"unmasked"), 1002), (encode_frame(0x1, b"\xff", mask=MASK), 1007), (encode_frame(0x2, b"x" * 11, mask=MASK), 1009)):
            ws, peer, reader, result = open_pair(max_bytes=10)
            peer.sock.sendall(frame)
            op, payload = peer.frame()
            self.assertEqual((op, payload[:2]), (0x8, struct.pack("!H", code)))
            peer.sock.shutdown(socket.SHUT_WR)
            reader.join(3)
            self.assertEqual(result["code"], code)

    def test_a_peer_that_goes_away_without_a_close_is_1006_and_receive_returns_none(self):
        ws, peer, reader, result = open_pair()
        closed = []
        ws._on_closed = closed.append
        peer.sock.close()
        reader.join(2)
        self.assertEqual((result["code"], ws.receive(), closed), (1006, None, [ws]))

    def test_unread_messages_hold_the_reading_back(self):
        ws, peer, reader, result = open_pair()
        for i in range(websocket_session.INBOX_MESSAGES + 1):
            peer.send(0x1, str(i).encode())
        deadline = time.monotonic() + 2
        while not ws.held_back and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertTrue(ws.held_back)
        self.assertEqual([ws.receive(timeout=2) for _ in range(websocket_session.INBOX_MESSAGES + 1)], [str(i) for i in range(websocket_session.INBOX_MESSAGES + 1)])
        self.assertFalse(ws.held_back)


class HeartbeatPingTest(unittest.TestCase):
    def test_a_heartbeat_ping_never_waits_for_a_send_under_way(self):
        ws, peer, reader, result = open_pair()
        with ws._send_lock:
            started = time.monotonic()
            ws.heartbeat_ping()  # skipped, not blocked
            self.assertLess(time.monotonic() - started, 1)
        ws.heartbeat_ping()
        self.assertEqual(peer.frame(), (0x9, b""))
        peer.sock.close()
        reader.join(2)


class SessionsTest(unittest.TestCase):
    def test_the_heartbeat_cuts_a_silent_peer_and_keeps_one_that_answers(self):
        log = _Log()
        sessions = WebSocketSessions(log, heartbeat_seconds=0.1)
        silent, silent_peer, silent_reader, silent_result = open_pair(on_closed=sessions.forget)
        lively, lively_peer, lively_reader, _ = open_pair(on_closed=sessions.forget)
        sessions.track(silent)
        sessions.track(lively)
        self.assertEqual(sessions.size, 2)

        def answer():
            try:
                while True:
                    op, data = lively_peer.frame()
                    if op == 0x9:
                        lively_peer.send(0xA, data)
                    elif op == 0x8:
                        lively_peer.send(0x8, data)
            except (EOFError, OSError):
                pass

        threading.Thread(target=answer, daemon=True).start()
        silent_reader.join(2)
        self.assertFalse(silent_reader.is_alive())
        self.assertEqual(silent_result["code"], 1006)
        self.assertEqual(log.records[0][0], "websocket peer did not answer a ping; connection terminated")
        time.sleep(0.35)  # three more beats
        self.assertTrue(lively_reader.is_alive())
        self.assertEqual(sessions.size, 1)
        sessions.close_all(1001, "worker draining")
        lively_reader.join(2)
        self.assertEqual((lively.close_code, lively.close_reason, sessions.size), (1001, "worker draining", 0))


if __name__ == "__main__":
    unittest.main()
