import unittest

from .handshake_refusal import refuse_handshake

OK = dict(runtime_path=False, draining=False, specialized=True, has_websocket_handler=True, function_name="default/chat", upgrade="websocket")


class HandshakeRefusalTest(unittest.TestCase):
    def code(self, **change):
        refused = refuse_handshake(**{**OK, **change})
        return None if refused is None else (refused[0], refused[1]["code"])

    def test_an_admitted_handshake_goes_on(self):
        self.assertIsNone(self.code())
        self.assertIsNone(self.code(upgrade="WebSocket"))

    def test_each_reason_has_its_status_and_code_in_the_node_runtimes_order(self):
        self.assertEqual(self.code(runtime_path=True, draining=True), (404, "not_found"))
        self.assertEqual(self.code(draining=True, specialized=False), (503, "draining"))
        self.assertEqual(self.code(specialized=False, upgrade="h2c"), (503, "not_specialized"))
        self.assertEqual(self.code(upgrade="h2c", has_websocket_handler=False), (400, "upgrade_not_supported"))
        self.assertEqual(self.code(upgrade="websocket, h2c"), (400, "upgrade_not_supported"))
        self.assertEqual(self.code(upgrade=None), (400, "upgrade_not_supported"))
        self.assertEqual(self.code(has_websocket_handler=False), (400, "websocket_not_supported"))

    def test_messages_say_what_was_asked_and_which_function(self):
        self.assertIn("asked for h2c", refuse_handshake(**{**OK, "upgrade": "h2c"})[1]["error"])
        self.assertIn("default/chat", refuse_handshake(**{**OK, "has_websocket_handler": False})[1]["error"])


if __name__ == "__main__":
    unittest.main()
