"""The worker's log, in the shape every Orrery component writes (packages/log, docs/operations.md "Logs"):
one JSON record per line on stderr, `{"level", "time", "component", <bindings>, <fields>, "msg"}`,
or the same record in a human form on a terminal. Every string a record carries is redacted first,
with the rules of packages/log/src/redaction.ts (credential fields, credential-looking text, and
the secrets registered at start)."""
import json
import re
import sys
import threading
import time

LEVELS = ("trace", "debug", "info", "warn", "error", "fatal", "silent")
_RANK = {name: i for i, name in enumerate(LEVELS)}
REDACTED = "[redacted]"
_CREDENTIAL_KEYS = ("authorization", "cookie", "set-cookie", "token", "password", "secret", "credential", "apiKey", "api_key")
_HEADER_KEYS = ("authorization", "cookie", "set-cookie", "proxy-authorization")
MIN_SECRET_LENGTH = 6
_MAX_DEPTH = 4


def _bearer(m):
    # A short lowercase word after "bearer" is prose ("any bearer token is accepted"), not a credential.
    return m.group(0) if re.fullmatch(r"[a-z]{1,12}", m.group(2) or "") else m.group(1) + " ***"


_TEXT_RULES = (
    (re.compile(r"\b([a-z][a-z0-9+.-]*://[^\s:/@]*):[^\s@/]*@", re.I), r"\1:***@"),
    (re.compile(r"\b(password|passwd|pwd|secret|token|api[-_]?key)(\s*[=:]\s*)(\"[^\"]*\"|'[^']*'|[^\s,;&]+)", re.I), r"\1\2***"),
    (re.compile(r"\b(bearer)\s+([^\s,;]+)", re.I), _bearer),
    (re.compile(r"\b[0-9a-f]{32,}\b", re.I), "***"),
    (re.compile(r"^(\s*params:).*$", re.I | re.M), r"\1 [redacted]"),
)

_secrets = set()
_secret_pattern = None
_secrets_lock = threading.Lock()


def register_secret(value):
    """Masks every later occurrence of `value` in log text (a token read from a file or the environment)."""
    global _secret_pattern
    v = (value or "").strip()
    if len(v) < MIN_SECRET_LENGTH:
        return
    with _secrets_lock:
        if v in _secrets:
            return
        _secrets.add(v)
        # Longest first, so a secret that contains another is masked whole.
        _secret_pattern = re.compile("|".join(re.escape(s) for s in sorted(_secrets, key=len, reverse=True)))


def redact_text(text):
    pattern = _secret_pattern
    out = pattern.sub("***", text) if pattern else text
    for rule, by in _TEXT_RULES:
        out = rule.sub(by, out)
    return out


def redact_fields(value, depth=0):
    """Every string passed through redact_text; exceptions become their message; unknown objects their text."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, BaseException):
        return redact_text(str(value))
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= _MAX_DEPTH:
        return "[nested too deep]"
    if isinstance(value, (list, tuple)):
        return [redact_fields(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): redact_fields(v, depth + 1) for k, v in value.items()}
    return redact_text(str(value))


def _mask_credential_fields(fields):
    """pino's redact paths: a credential key at the top level, one level down, or in `*.headers`."""
    out = {}
    for k, v in fields.items():
        if k in _CREDENTIAL_KEYS:
            out[k] = REDACTED
        elif isinstance(v, dict):
            inner = {}
            for ik, iv in v.items():
                if ik in _CREDENTIAL_KEYS:
                    inner[ik] = REDACTED
                elif ik == "headers" and isinstance(iv, dict):
                    inner[ik] = {hk: (REDACTED if hk in _HEADER_KEYS else hv) for hk, hv in iv.items()}
                else:
                    inner[ik] = iv
            out[k] = inner
        else:
            out[k] = v
    return out


def iso_time(seconds):
    """`new Date(ms).toISOString()`: UTC, milliseconds, Z."""
    ms = int(seconds * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def resolve_log_level(flag, env):
    """The flag wins over ORRERY_LOG_LEVEL; neither -> info. Returns (level, None) or (None, message)."""
    raw, source = (flag, "--log-level") if flag is not None else (env.get("ORRERY_LOG_LEVEL") or None, "ORRERY_LOG_LEVEL")
    if raw is None:
        return "info", None
    value = raw.strip().lower()
    if value in LEVELS:
        return value, None
    return None, "%s must be one of %s, got %s" % (source, ", ".join(LEVELS), json.dumps(raw))


def resolve_log_format(env, to_terminal):
    """ORRERY_LOG_FORMAT=json|pretty wins; unset -> pretty on a terminal, JSON lines otherwise."""
    raw = env.get("ORRERY_LOG_FORMAT") or None
    if raw is None:
        return ("pretty" if to_terminal else "json"), None
    value = raw.strip().lower()
    if value in ("json", "pretty"):
        return value, None
    return None, "ORRERY_LOG_FORMAT must be json or pretty, got %s" % json.dumps(raw)


_SHOWN_BY_LAYOUT = ("level", "time", "component", "reqId", "msg")


def pretty_line(record):
    """`05:40:01.123 INFO  runtime routes loaded {"extra":1}` (packages/log pretty-line.ts, without colours)."""
    rest = {k: v for k, v in record.items() if k not in _SHOWN_BY_LAYOUT}
    extra = " " + json.dumps(rest, separators=(",", ":"), default=str) if rest else ""
    return "%s %s %s %s%s\n" % (record["time"][11:23], record["level"].upper().ljust(5), record["component"], record["msg"], extra)


class Logger:
    """debug/info/warn/error(msg, fields=None, **more); child(bindings) tags every record of the child."""

    def __init__(self, component, level="info", fmt="json", stream=None, bindings=None, _lock=None, clock=time.time):
        self.component, self.level, self.format = component, level, fmt
        self.stream = stream if stream is not None else sys.stderr
        self.bindings = dict(bindings or {})
        self._lock = _lock or threading.Lock()
        self._clock = clock

    def child(self, bindings):
        return Logger(self.component, self.level, self.format, self.stream, {**self.bindings, **redact_fields(dict(bindings))}, self._lock, self._clock)

    def is_level_enabled(self, level):
        return _RANK[level] >= _RANK[self.level] and self.level != "silent"

    def record(self, level, msg, fields=None):
        """The record as written (a dict), or None when the level is off."""
        if not self.is_level_enabled(level):
            return None
        rec = {"level": level, "time": iso_time(self._clock()), "component": self.component}
        rec.update(self.bindings)
        if fields:
            rec.update(_mask_credential_fields(redact_fields(dict(fields))))
        rec["msg"] = redact_text(str(msg))
        return rec

    def _emit(self, level, msg, fields, more):
        merged = {**(fields or {}), **more} if more else fields
        rec = self.record(level, msg, merged)
        if rec is None:
            return
        line = pretty_line(rec) if self.format == "pretty" else json.dumps(rec, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            try:
                self.stream.write(line)
                self.stream.flush()
            except (OSError, ValueError):
                pass  # stderr gone (the supervisor closed it): nothing else to tell

    def debug(self, msg, fields=None, **more):
        self._emit("debug", msg, fields, more)

    def info(self, msg, fields=None, **more):
        self._emit("info", msg, fields, more)

    def warn(self, msg, fields=None, **more):
        self._emit("warn", msg, fields, more)

    warning = warn

    def error(self, msg, fields=None, **more):
        self._emit("error", msg, fields, more)
