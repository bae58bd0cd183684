import unittest

from .http_messages import Headers, InvalidResponse, Request, Response, to_response


class MessagesTest(unittest.TestCase):
    def test_request_fields(self):
        h = Headers([("Host", "w:8080"), ("X-A", "1"), ("x-a", "2")])
        r = Request("POST", "/p/q?a=1&a=2&b=", h, b'{"k": 3}')
        self.assertEqual((r.url, r.path, r.query, r.query_pairs), ("http://w:8080/p/q?a=1&a=2&b=", "/p/q", {"a": "1", "b": ""}, [("a", "1"), ("a", "2"), ("b", "")]))
        self.assertEqual((h.get("x-A"), h.get_all("X-A"), h["host"], "x-b" in h), ("1, 2", ["1", "2"], "w:8080", False))
        self.assertEqual((r.json(), r.text()), ({"k": 3}, '{"k": 3}'))
        self.assertFalse(r.cancelled.is_set())

    def test_what_a_handler_may_return(self):
        self.assertEqual((to_response({"a": 1}).body, to_response({"a": 1}).headers.get("content-type")), (b'{"a":1}', "application/json"))
        self.assertEqual(to_response("hi").headers.get("content-type"), "text/plain;charset=UTF-8")
        self.assertEqual(to_response(b"\x00").body, b"\x00")
        t = to_response(("gone", 410, {"x-why": "old"}))
        self.assertEqual((t.status, t.body, t.headers.get("X-Why")), (410, b"gone", "old"))
        self.assertEqual(to_response(({"ok": True}, 201)).status, 201)
        streamed = to_response(Response((c for c in ["a", "b"]), headers={"content-type": "text/event-stream"}))
        self.assertTrue(streamed.streamed)
        self.assertEqual(Response.json([1], 202).body, b"[1]")
        for bad, says in ((None, "None"), (42, "int"), (("x", 99), "status")):
            with self.assertRaises(InvalidResponse) as caught:
                to_response(bad)
            self.assertIn(says, str(caught.exception))

        async def coro():
            return "x"

        c = coro()
        with self.assertRaisesRegex(InvalidResponse, "coroutine"):
            to_response(c)
        c.close()


if __name__ == "__main__":
    unittest.main()
