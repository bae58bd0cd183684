import struct
import unittest

from .websocket_frames import (
    FrameReader,
    ProtocolViolation,
    accept_key,
    apply_mask,
    chosen_subprotocol,
    close_payload,
    encode_frame,
    handshake_problem,
    handshake_response,
    parse_close_payload,
)

MASK = b"\x37\xfa\x21\x3d"
KEY = "dGhlIHNhbXBsZSBub25jZQ=="


def client(opcode, payload=b"", fin=True):
    return encode_frame(opcode, payload, fin=fin, mask=MASK)


def read(data, max_bytes=1 << 20, reader=None):
    reader = reader or FrameReader(max_bytes)
    reader.feed(data)
    return list(reader.events())


class HandshakeTest(unittest.TestCase):
    def test_accept_key_is_rfc_6455s_example(self):
        self.assertEqual(accept_key(KEY), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        head = handshake_response(KEY, "chat").decode()
        self.assertTrue(head.startswith("HTTP/1.1 101 Switching Protocols\r\n"))
        self.assertIn("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", head)
        self.assertIn("Sec-WebSocket-Protocol: chat\r\n", head)
        self.assertTrue(head.endswith("\r\n\r\n"))
        self.assertNotIn("Sec-WebSocket-Protocol", handshake_response(KEY).decode())

    def test_handshake_problems(self):
        ok = {"sec-websocket-key": KEY, "sec-websocket-version": "13"}
        self.assertIsNone(handshake_problem("GET", ok))
        self.assertIsNone(handshake_problem("GET", {**ok, "sec-websocket-version": "8"}))
        self.assertIn("GET", handshake_problem("POST", ok))
        for key in (None, "", "short", "not base64 at all!!", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="):
            self.assertIn("Sec-WebSocket-Key", handshake_problem("GET", {**ok, "sec-websocket-key": key}))
        self.assertIn("Version", handshake_problem("GET", {**ok, "sec-websocket-version": "7"}))

    def test_the_first_offered_subprotocol_is_chosen(self):
        self.assertEqual(chosen_subprotocol("chat.v2, chat.v1"), "chat.v2")
        self.assertIsNone(chosen_subprotocol(None))
        self.assertIsNone(chosen_subprotocol(" , "))


class FramingTest(unittest.TestCase):
    def violation(self, data, max_bytes=1 << 20):
        """The close code reading `data` earns (the test fails when it reads cleanly)."""
        with self.assertRaises(ProtocolViolation) as caught:
            read(data, max_bytes)
        return caught.exception.code

    def test_server_frames_are_unmasked_with_7_16_and_64_bit_lengths(self):
        self.assertEqual(encode_frame(0x1, b"hi"), b"\x81\x02hi")
        self.assertEqual(encode_frame(0x2, b"x" * 126)[:4], b"\x82\x7e\x00\x7e")
        self.assertEqual(encode_frame(0x2, b"x" * 70000)[:10], b"\x82\x7f" + struct.pack("!Q", 70000))
        self.assertEqual(encode_frame(0x1, b"a", fin=False)[0], 0x01)

    def test_masking_round_trips(self):
        self.assertEqual(apply_mask(apply_mask(b"hello world", MASK), MASK), b"hello world")
        self.assertEqual(apply_mask(b"", MASK), b"")
        self.assertEqual(apply_mask(b"\x00\x00\x00\x00\x00", MASK), MASK + MASK[:1])

    def test_messages_of_every_length_and_byte_by_byte_arrival(self):
        for n in (0, 1, 125, 126, 65535, 65536, 70000):
            self.assertEqual(read(client(0x2, b"b" * n)), [("binary", b"b" * n)])
        reader = FrameReader(1024)
        got = []
        for byte in client(0x1, "héllo ✓".encode()) + client(0x9, b"p"):
            reader.feed(bytes([byte]))
            got += list(reader.events())
        self.assertEqual(got, [("text", "héllo ✓"), ("ping", b"p")])

    def test_fragments_join_with_control_frames_between_them(self):
        data = client(0x1, b"frag", fin=False) + client(0xA, b"pong!") + client(0x0, b"men", fin=False) + client(0x0, b"ted")
        self.assertEqual(read(data), [("pong", b"pong!"), ("text", "fragmented")])
        # A character split across fragments is still valid UTF-8.
        euro = "€".encode()
        self.assertEqual(read(client(0x1, euro[:1], fin=False) + client(0x0, euro[1:])), [("text", "€")])
        self.assertEqual(read(client(0x2, b"a", fin=False) + client(0x0, b"b")), [("binary", b"ab")])

    def test_close_frames(self):
        self.assertEqual(read(client(0x8, close_payload(4001, "bye"))), [("close", (4001, "bye"))])
        self.assertEqual(read(client(0x8)), [("close", (1005, ""))])
        self.assertEqual(parse_close_payload(struct.pack("!H", 1000)), (1000, ""))
        self.assertEqual(close_payload(None), b"")
        # A long reason is cut to fit a control frame, never mid-character.
        cut = close_payload(1001, "é" * 100)
        self.assertLessEqual(len(cut), 125)
        cut[2:].decode("utf-8")

    def test_violations_and_their_close_codes(self):
        unmasked = encode_frame(0x1, b"hi")
        self.assertEqual(self.violation(unmasked), 1002)
        self.assertEqual(self.violation(bytes([0xC1]) + client(0x1, b"x")[1:]), 1002)  # RSV1 without an extension
        self.assertEqual(self.violation(client(0x3, b"x")), 1002)  # reserved data opcode
        self.assertEqual(self.violation(client(0xB, b"x")), 1002)  # reserved control opcode
        self.assertEqual(self.violation(client(0x9, b"x", fin=False)), 1002)  # fragmented control frame
        self.assertEqual(self.violation(client(0x9, b"x" * 126)), 1002)  # control frame over 125 bytes
        self.assertEqual(self.violation(client(0x0, b"x")), 1002)  # continuation of nothing
        self.assertEqual(self.violation(client(0x1, b"a", fin=False) + client(0x1, b"b")), 1002)  # new message mid-fragments
        self.assertEqual(self.violation(bytes([0x82, 0xFF]) + struct.pack("!Q", 1 << 63) + MASK), 1002)  # 64-bit length with the top bit
        self.assertEqual(self.violation(client(0x8, b"\x03")), 1002)  # 1-byte close payload
        for code in (0, 999, 1004, 1005, 1006, 1015, 2000, 5000):
            self.assertEqual(self.violation(client(0x8, struct.pack("!H", code))), 1002, code)
        self.assertEqual(self.violation(client(0x8, struct.pack("!H", 1000) + b"\xff")), 1007)
        self.assertEqual(self.violation(client(0x1, b"\xc3\x28")), 1007)
        # Bad UTF-8 fails on the fragment that has it, not at the message's end.
        self.assertEqual(self.violation(client(0x1, b"\xff", fin=False)), 1007)
        # Truncated UTF-8 at the end of the message.
        self.assertEqual(self.violation(client(0x1, "€".encode()[:2])), 1007)

    def test_the_size_cap_is_checked_on_the_header_and_across_fragments(self):
        self.assertEqual(read(client(0x2, b"x" * 10), max_bytes=10), [("binary", b"x" * 10)])
        self.assertEqual(self.violation(client(0x2, b"x" * 11), max_bytes=10), 1009)
        # Only the header of a huge frame arrives: refused before any payload is buffered.
        self.assertEqual(self.violation(bytes([0x82, 0xFF]) + struct.pack("!Q", 1 << 40) + MASK, max_bytes=10), 1009)
        self.assertEqual(self.violation(client(0x1, b"x" * 6, fin=False) + client(0x0, b"x" * 6), max_bytes=10), 1009)
        # Control frames do not count towards a message.
        self.assertEqual(read(client(0x2, b"x" * 6, fin=False) + client(0x9, b"p" * 100) + client(0x0, b"x" * 4), max_bytes=10), [("ping", b"p" * 100), ("binary", b"x" * 10)])


if __name__ == "__main__":
    unittest.main()
