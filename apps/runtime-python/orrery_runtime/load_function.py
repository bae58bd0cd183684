"""Source -> module file -> import -> handler (apps/runtime/src/load/load-function.ts and entrypoint.ts
for Python). Shared by deploy mode (at start) and pool mode (POST /v1/specialize), so both load code
the same way and fail with the same codes. The module is imported from its file whatever the file's
name ends with: on Kubernetes inline code is mounted from the revision's ConfigMap as `index.mjs`."""
import importlib.machinery
import importlib.util
import inspect
import os
import re
import sys
import types

from .function_source import DEFAULT_MAX_SOURCE_BYTES, materialize_source
from .load_error import LoadError

# The platform's default entrypoint ("default", the Node export) finds `default`, else `handler`.
DEFAULT_NAMES = ("default", "handler")


class LoadedFunction:
    def __init__(self, handler, module_path, is_async, wants_ctx, websocket=None):
        self.handler = handler
        # The module's `websocket(socket, request, ctx)`, or None: handshakes are refused without one.
        self.websocket = websocket
        self.module_path = module_path
        self.is_async = is_async
        # False for a handler that takes only the request.
        self.wants_ctx = wants_ctx


def load_function(source, entrypoint, work_dir, max_bytes=DEFAULT_MAX_SOURCE_BYTES):
    module_path = materialize_source(source, work_dir, max_bytes)
    name = "orrery_fn_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(module_path))[0])
    where = source["file"] if source.get("file") is not None else ("the downloaded function module" if source.get("url") is not None else "the inline function module")
    if source.get("file") is not None:
        # A file source may import the modules beside it, as a Node module imports its neighbours.
        folder = os.path.dirname(module_path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
    if source.get("dir") is not None:
        # A built package imports its own modules and the dependencies pip installed beside them.
        root = os.path.realpath(source["dir"])
        where = "%s of the package" % os.path.relpath(module_path, root)
        for folder in (os.path.join(root, ".python-packages"), os.path.dirname(module_path), root):
            if folder not in sys.path:
                sys.path.insert(0, folder)
    try:
        loader = importlib.machinery.SourceFileLoader(name, module_path)
        spec = importlib.util.spec_from_loader(name, loader, origin=module_path)
        module = importlib.util.module_from_spec(spec)
        module.__file__ = module_path
        sys.modules[name] = module
        loader.exec_module(module)
    except BaseException as e:  # SyntaxError, ImportError, anything its top-level code raised (SystemExit too)
        sys.modules.pop(name, None)
        raise LoadError("module_load_failed", "importing the function module failed: %s: %s" % (type(e).__name__, e)) from None
    handler = resolve_entrypoint(module, entrypoint or "default", where)
    return LoadedFunction(handler, module_path, is_async_callable(handler), takes_context(handler), resolve_websocket(module, where))


def resolve_websocket(module, where="the function module"):
    """The module's `websocket` handler, or None. It runs on a handler thread and blocks in
    socket.receive(), so it must be a plain def: an async def would hold the shared event loop."""
    value = _lookup(module, "websocket")
    if value is None:
        return None
    if not callable(value) or is_async_callable(value):
        what = "an async def" if callable(value) else type(value).__name__
        raise LoadError(
            "websocket_not_function",
            '"websocket" of %s is %s; it must be a plain def websocket(socket, request, ctx) (it runs on its own thread: loop over socket.receive()).' % (where, what),
        )
    return value


def positional_arity(fn, most):
    """How many of `most` leading arguments a function takes (all of them when it takes *args or cannot be inspected)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return most
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return most
    return min(most, len([p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]))


def _public_names(obj):
    table = vars(obj) if isinstance(obj, types.ModuleType) else (obj if isinstance(obj, dict) else {})
    return [n for n, v in table.items() if not n.startswith("_") and not isinstance(v, types.ModuleType)]


def _lookup(obj, key):
    """An own member: a module's global, a dict's key, an object's public attribute (never dunder)."""
    if key.startswith("__"):
        return None
    if isinstance(obj, types.ModuleType):
        return vars(obj).get(key)
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def resolve_entrypoint(module, entrypoint="default", where="the function module"):
    path = entrypoint.split(".")
    if any(p == "" for p in path):
        raise LoadError("entrypoint_not_found", 'entrypoint "%s" is not a valid name (use e.g. "handler" or "handlers.greet")' % entrypoint)
    if entrypoint == "default":
        value, shown = None, "handler"
        for candidate in DEFAULT_NAMES:
            value = _lookup(module, candidate)
            if value is not None:
                shown = candidate
                break
    else:
        value, shown = module, entrypoint
        for key in path:
            value = _lookup(value, key) if value is not None else None
    if value is None:
        names = _public_names(module)
        listed = ", ".join('"%s"' % n for n in names) if names else "nothing"
        asked = 'no function named "handler" (the default entrypoint)' if entrypoint == "default" else 'no "%s"' % entrypoint
        raise LoadError(
            "entrypoint_not_found",
            "%s has %s; it defines %s. Define def handler(request, ctx) (or async def) under that name, or set entrypoint to one of them." % (where, asked, listed),
        )
    if not callable(value):
        raise LoadError(
            "entrypoint_not_function",
            'entrypoint "%s" of %s is %s, not a function; it must be a def handler(request, ctx) (or async def) returning a response.' % (shown, where, "None" if value is None else type(value).__name__),
        )
    return value


def is_async_callable(fn):
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def takes_context(fn):
    """True unless the handler accepts exactly one positional argument (then it is called with the request alone)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) != 1
