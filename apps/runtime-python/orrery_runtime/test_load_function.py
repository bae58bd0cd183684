import http.server
import os
import stat
import tempfile
import threading
import types
import unittest

from .load_error import LoadError
from .load_function import load_function, positional_arity, resolve_entrypoint, resolve_websocket, takes_context

SERVED = {
    "/fn.py": (200, b"def handler(request, ctx):\n    return 'from url'\n"),
    "/missing.py": (404, b"nope"),
    "/huge.py": (200, b"#" * 5000),
}


class _Serve(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        status, body = SERVED.get(self.path.split("?")[0], (404, b""))
        self.send_response(status)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


class LoadFunctionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Serve)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.base = "http://127.0.0.1:%d" % cls.server.server_address[1]

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def test_inline_code_goes_into_a_read_only_content_addressed_file(self):
        code = "def handler(request, ctx):\n    return 'inline'\n"
        a = load_function({"inline": code}, None, self.dir)
        self.assertTrue(a.module_path.startswith(self.dir) and a.module_path.endswith(".py"))
        self.assertEqual(stat.S_IMODE(os.stat(a.module_path).st_mode), 0o444)
        self.assertEqual(a.handler(None, None), "inline")
        self.assertEqual(load_function({"inline": code}, None, self.dir).module_path, a.module_path)
        self.assertFalse(a.is_async)

    def test_a_file_of_any_name_with_a_named_or_async_entrypoint_and_its_neighbours(self):
        # Kubernetes mounts inline code as index.mjs: the name does not matter.
        sub = tempfile.mkdtemp(dir=self.dir)
        with open(os.path.join(sub, "helper_mod_for_test.py"), "w") as f:
            f.write("VALUE = 'neighbour'\n")
        path = os.path.join(sub, "index.mjs")
        with open(path, "w") as f:
            f.write("import helper_mod_for_test\nasync def hello(request):\n    return helper_mod_for_test.VALUE\n")
        f = load_function({"file": path}, "hello", self.dir)
        self.assertTrue(f.is_async)
        self.assertFalse(f.wants_ctx)
        with self.assertRaises(LoadError) as caught:
            load_function({"file": path}, None, self.dir)
        self.assertEqual(caught.exception.code, "entrypoint_not_found")
        self.assertIn('defines "hello"', caught.exception.message)

    def test_a_package_folder_imports_its_dependencies_from_python_packages(self):
        pkg = tempfile.mkdtemp(dir=self.dir)
        os.makedirs(os.path.join(pkg, ".python-packages", "pkgdep_for_test"))
        with open(os.path.join(pkg, ".python-packages", "pkgdep_for_test", "__init__.py"), "w") as f:
            f.write("def wrap(s):\n    return '[' + s + ']'\n")
        with open(os.path.join(pkg, "main.py"), "w") as f:
            f.write("import pkgdep_for_test\ndef handler(request):\n    return pkgdep_for_test.wrap('ok')\n")
        loaded = load_function({"dir": pkg}, None, self.dir)
        self.assertEqual(loaded.handler(None), "[ok]")
        with open(os.path.join(self.dir, "outside.py"), "w") as f:
            f.write("def handler(r):\n    return 'outside'\n")
        for main in ("../outside.py", "absent.py"):
            with self.assertRaises(LoadError) as caught:
                load_function({"dir": pkg, "main": main}, None, self.dir)
            self.assertEqual(caught.exception.code, "source_not_found")
        with self.assertRaises(LoadError) as caught:
            load_function({"inline": "x", "main": "m.py"}, None, self.dir)
        self.assertEqual(caught.exception.code, "source_invalid")

    def test_a_url_source_and_its_refusals(self):
        f = load_function({"url": self.base + "/fn.py?sig=secret"}, "handler", self.dir)
        self.assertEqual(f.handler(None, None), "from url")
        with self.assertRaises(LoadError) as missing:
            load_function({"url": self.base + "/missing.py?sig=secret"}, None, self.dir)
        self.assertEqual(missing.exception.code, "source_fetch_failed")
        self.assertIn("HTTP 404", missing.exception.message)
        self.assertNotIn("secret", missing.exception.message)
        for source, code, kw in (
            ({"url": self.base + "/huge.py"}, "source_too_large", {"max_bytes": 1000}),
            ({"url": "file:///etc/passwd"}, "source_invalid", {}),
            ({}, "source_invalid", {}),
            ({"inline": "x", "file": "/a"}, "source_invalid", {}),
            ({"file": os.path.join(self.dir, "absent.py")}, "source_not_found", {}),
            ({"inline": "def handler(:"}, "module_load_failed", {}),
            ({"inline": "raise SystemExit(3)"}, "module_load_failed", {}),
            ({"inline": "x" * 20}, "source_too_large", {"max_bytes": 10}),
            ({"inline": "handler = 42"}, "entrypoint_not_function", {}),
        ):
            with self.assertRaises(LoadError, msg=source) as caught:
                load_function(source, None, self.dir, **kw)
            self.assertEqual(caught.exception.code, code, msg=(source, caught.exception.message))


class EntrypointTest(unittest.TestCase):
    def test_default_finds_default_then_handler_and_dotted_paths_walk(self):
        def h(request, ctx):
            return "h"

        def d(request, ctx):
            return "d"

        mod = types.ModuleType("m")
        mod.handler = h
        self.assertIs(resolve_entrypoint(mod), h)
        mod.default = d
        self.assertIs(resolve_entrypoint(mod), d)
        mod.handlers = {"greet": h}
        self.assertIs(resolve_entrypoint(mod, "handlers.greet"), h)
        for bad in ("a..b", "__class__", "handlers.missing"):
            with self.assertRaises(LoadError) as caught:
                resolve_entrypoint(mod, bad)
            self.assertEqual(caught.exception.code, "entrypoint_not_found")

    def test_context_argument_detection(self):
        self.assertTrue(takes_context(lambda request, ctx: 1))
        self.assertFalse(takes_context(lambda request: 1))
        self.assertTrue(takes_context(lambda *args: 1))
        self.assertTrue(takes_context(print))

    def test_the_websocket_export_is_a_plain_function_or_absent(self):
        def ws(socket, request, ctx):
            pass

        async def async_ws(socket, request, ctx):
            pass

        mod = types.ModuleType("m")
        self.assertIsNone(resolve_websocket(mod))
        mod.websocket = ws
        self.assertIs(resolve_websocket(mod), ws)
        for bad, said in ((async_ws, "an async def"), ("echo", "str")):
            mod.websocket = bad
            with self.assertRaises(LoadError) as caught:
                resolve_websocket(mod, "m.py")
            self.assertEqual(caught.exception.code, "websocket_not_function")
            self.assertIn(said, str(caught.exception))
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "ws_fn.py"), "w") as f:
            f.write("def handler(request):\n    return 'http'\n\ndef websocket(socket):\n    pass\n")
        loaded = load_function({"file": os.path.join(folder, "ws_fn.py")}, None, folder)
        self.assertEqual(loaded.websocket.__name__, "websocket")

    def test_positional_arity(self):
        self.assertEqual([positional_arity(f, 3) for f in (lambda s: 1, lambda s, r: 1, lambda s, r, c: 1, lambda s, r, c, extra=None: 1, lambda *a: 1, print)], [1, 2, 3, 3, 3, 3])


if __name__ == "__main__":
    unittest.main()
