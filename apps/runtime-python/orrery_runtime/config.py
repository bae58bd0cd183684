"""Everything a worker needs at start, from flags with ORRERY_* environment fallbacks: exactly the
flags and rules of the Node runtime (apps/runtime/src/config.ts), since the operator starts both the
same way. Pure: parse_runtime_config(argv, env) returns a RuntimeConfig or raises ConfigError."""
import re
from dataclasses import dataclass, field

from .structured_log import resolve_log_level

PROGRAM = "orrery-runtime-python"

USAGE = """usage: orrery-runtime-python [--mode deploy|pool] [--host H] [--port P] [--admin-port P]
  deploy mode: --function F --revision R (--source-file PATH | --source-inline CODE | --source-url URL | --source-dir DIR [--source-main PATH])
  [--namespace NS] [--entrypoint NAME] [--container-concurrency N] [--timeout-seconds S]
  [--drain-timeout-seconds S] [--registry-url URL[,URL...]] [--lease-ttl-seconds S] [--instance-id ID]
  [--state-url URL --state-keyspace KS  (token in env ORRERY_STATE_TOKEN, or --state-token-file FILE)]
  [--state-fencing on|off  (default off: ctx.state claims each key before its first write and sends its fence)]
  [--work-dir DIR] [--advertise-host H] [--max-request-bytes N] [--max-source-bytes N]
  [--registry-credential-file FILE  (or env ORRERY_REGISTRY_CREDENTIAL: the revision's registration credential)]
  pool mode: --specialize-verifier-file FILE  (or env ORRERY_SPECIALIZE_VERIFIER): SHA-256 of the single-use
  nonce POST /v1/specialize must carry as Authorization: Bearer <nonce>; without it nobody can specialize the worker
  [--log-level trace|debug|info|warn|error|fatal|silent (default info; ORRERY_LOG_FORMAT=json|pretty)]
  [--exit-with-parent PID  (drain and exit as on SIGTERM once PID is no longer this process's parent; the local operator sets it)]
  [--otlp-endpoint URL (accepted for the Node runtime's sake: this runtime records no spans; docs/python.md)]
Every flag falls back to ORRERY_<FLAG_IN_UPPER_SNAKE_CASE>, e.g. ORRERY_TIMEOUT_SECONDS."""

STRING_FLAGS = (
    "mode", "host", "port", "admin-port", "advertise-host", "namespace", "function", "revision",
    "source-file", "source-inline", "source-url", "source-dir", "source-main", "entrypoint", "container-concurrency", "timeout-seconds",
    "drain-timeout-seconds", "max-request-bytes", "max-source-bytes", "registry-url", "lease-ttl-seconds",
    "instance-id", "state-url", "state-keyspace", "state-token-file", "state-fencing", "specialize-verifier-file",
    "specialize-token-file", "work-dir", "registry-credential-file", "log-level", "otlp-endpoint", "exit-with-parent",
)


class ConfigError(Exception):
    pass


@dataclass
class RuntimeConfig:
    mode: str
    host: str
    port: int
    admin_port: object  # int or None
    advertise_host: object
    namespace: str
    function: object
    revision: object
    source: object  # {"inline"|"file"|"url": str} or None
    entrypoint: str
    container_concurrency: int
    timeout_seconds: int
    drain_timeout_seconds: int
    max_request_bytes: int
    max_source_bytes: int
    registry_urls: list
    lease_ttl_seconds: int
    instance_id: object
    state_url: object
    state_keyspace: object
    # From the environment only (never a flag: flags show in `ps`). Never logged.
    state_token: object
    state_token_file: object
    state_fencing: bool
    specialize_verifier_file: object
    specialize_verifier: object
    registry_credential: object
    registry_credential_file: object
    work_dir: object
    log_level: str
    otlp_endpoint: object = None
    # --exit-with-parent PID: drain and exit once PID is no longer the parent (it died; init adopted us).
    exit_with_parent: object = None
    extra: dict = field(default_factory=dict)


def env_name(flag):
    return "ORRERY_" + flag.upper().replace("-", "_")


def _parse_flags(argv):
    """`--flag value` and `--flag=value`, every flag taking a string (Node's parseArgs, strict)."""
    values = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("--"):
            raise ConfigError("Unexpected argument '%s'. This command does not take positional arguments" % arg)
        name, eq, value = arg[2:].partition("=")
        if name not in STRING_FLAGS:
            raise ConfigError("Unknown option '--%s'" % name)
        if not eq:
            if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                raise ConfigError("Option '--%s <value>' argument missing" % name)
            value = argv[i + 1]
            i += 1
        values[name] = value
        i += 1
    return values


def parse_runtime_config(argv, env):
    values = _parse_flags(argv)

    def get(f):
        v = values[f] if f in values else env.get(env_name(f))
        return None if v is None or v == "" else v

    def integer(f, default, minimum=0):
        raw = get(f)
        if raw is None:
            return default
        n = int(raw) if re.fullmatch(r"\d+", raw) else None
        if n is None or n < minimum:
            raise ConfigError('--%s must be an integer ≥ %d, got "%s"' % (f, minimum, raw))
        return n

    def port(f, default=None):
        n = default if get(f) is None else integer(f, 0)
        if n is not None and n > 65535:
            raise ConfigError("--%s must be a port number (0 picks a free one), got %d" % (f, n))
        return n

    def on_off(f):
        raw = get(f)
        if raw is None or raw == "off":
            return False
        if raw == "on":
            return True
        raise ConfigError('--%s must be on or off, got "%s"' % (f, raw))

    mode = get("mode") or "deploy"
    if mode not in ("deploy", "pool"):
        raise ConfigError('--mode must be deploy or pool, got "%s"' % mode)

    sources = [f for f in ("source-file", "source-inline", "source-url", "source-dir") if get(f) is not None]
    if len(sources) > 1:
        raise ConfigError("give only one of --source-file, --source-inline, --source-url, --source-dir (got %s)" % ", ".join("--" + s for s in sources))
    if get("source-main") is not None and get("source-dir") is None:
        raise ConfigError("--source-main goes with --source-dir: it names the module inside the package folder")
    source = {sources[0][len("source-"):]: get(sources[0])} if sources else None
    if source is not None and get("source-main") is not None:
        source["main"] = get("source-main")

    timeout_seconds = integer("timeout-seconds", 300, 1)
    log_level, problem = resolve_log_level(get("log-level"), {})
    if problem:
        raise ConfigError(problem)
    cfg = RuntimeConfig(
        mode=mode,
        host=get("host") or "127.0.0.1",
        port=port("port", 8080),
        admin_port=port("admin-port"),
        advertise_host=get("advertise-host"),
        namespace=get("namespace") or "default",
        function=get("function"),
        revision=get("revision"),
        source=source,
        entrypoint=get("entrypoint") or "default",
        container_concurrency=integer("container-concurrency", 0),
        timeout_seconds=timeout_seconds,
        drain_timeout_seconds=integer("drain-timeout-seconds", timeout_seconds, 0),
        max_request_bytes=integer("max-request-bytes", 64 * 1024 * 1024, 1),
        max_source_bytes=integer("max-source-bytes", 8 * 1024 * 1024, 1),
        registry_urls=[s.strip() for s in (get("registry-url") or "").split(",") if s.strip()],
        lease_ttl_seconds=integer("lease-ttl-seconds", 30, 1),
        instance_id=get("instance-id"),
        state_url=get("state-url"),
        state_keyspace=get("state-keyspace"),
        state_token=env.get("ORRERY_STATE_TOKEN") or None,
        state_token_file=get("state-token-file"),
        state_fencing=on_off("state-fencing"),
        specialize_verifier_file=get("specialize-verifier-file"),
        specialize_verifier=env.get("ORRERY_SPECIALIZE_VERIFIER") or None,
        registry_credential=env.get("ORRERY_REGISTRY_CREDENTIAL") or None,
        registry_credential_file=get("registry-credential-file"),
        work_dir=get("work-dir"),
        log_level=log_level,
        otlp_endpoint=get("otlp-endpoint"),
        exit_with_parent=None if get("exit-with-parent") is None else integer("exit-with-parent", 0, 1),
    )

    if mode == "deploy":
        missing = [m for m, absent in (("--function", not cfg.function), ("--revision", not cfg.revision), ("a source (--source-file, --source-inline, --source-url or --source-dir)", not cfg.source)) if absent]
        if missing:
            raise ConfigError("deploy mode needs " + ", ".join(missing))
    elif cfg.source or cfg.function or cfg.revision:
        raise ConfigError("pool mode starts generic: the function, revision and source arrive with POST /v1/specialize")
    if cfg.state_fencing and cfg.state_keyspace is None:
        raise ConfigError(
            "pool mode learns fencing at specialize (stateFencing), not at start" if mode == "pool" else "--state-fencing on needs --state-keyspace: fencing is for the function's keyspace"
        )
    if cfg.state_keyspace is not None:
        if mode == "pool":
            raise ConfigError("pool mode receives state credentials at specialize, not at start")
        if not cfg.state_url:
            raise ConfigError("--state-keyspace needs --state-url (or ORRERY_STATE_URL)")
        if cfg.state_token and cfg.state_token_file:
            raise ConfigError("give the state token one way: ORRERY_STATE_TOKEN or --state-token-file, not both")
        if not cfg.state_token and not cfg.state_token_file:
            raise ConfigError("--state-keyspace needs the token: --state-token-file FILE, or the environment variable ORRERY_STATE_TOKEN")
    elif mode == "deploy" and (cfg.state_token or cfg.state_token_file):
        what = "ORRERY_STATE_TOKEN is set" if cfg.state_token else "--state-token-file is given"
        raise ConfigError("%s but no --state-keyspace (or ORRERY_STATE_KEYSPACE): say which keyspace the token is for" % what)
    if mode == "pool" and cfg.state_token_file:
        raise ConfigError("pool mode receives state credentials at specialize, not at start (no --state-token-file)")
    if cfg.registry_credential and cfg.registry_credential_file:
        raise ConfigError("give the registry credential one way: ORRERY_REGISTRY_CREDENTIAL or --registry-credential-file, not both")
    if mode == "pool" and (cfg.registry_credential or cfg.registry_credential_file):
        raise ConfigError("pool mode receives its registry credential at specialize, not at start (no ORRERY_REGISTRY_CREDENTIAL or --registry-credential-file)")
    if get("specialize-token-file") is not None:
        raise ConfigError(
            "--specialize-token-file (one token shared by the whole pool) is gone: pool workers take --specialize-verifier-file FILE or ORRERY_SPECIALIZE_VERIFIER, the SHA-256 of their own single-use nonce"
        )
    if cfg.specialize_verifier and cfg.specialize_verifier_file:
        raise ConfigError("give the specialize verifier one way: ORRERY_SPECIALIZE_VERIFIER or --specialize-verifier-file, not both")
    if mode == "deploy" and (cfg.specialize_verifier_file or cfg.specialize_verifier):
        raise ConfigError("the specialize verifier (--specialize-verifier-file, ORRERY_SPECIALIZE_VERIFIER) is for pool mode: deploy workers cannot be specialized")
    return cfg


def tracing_requested(cfg, env):
    """Whether whoever started the worker asked for spans (the Node runtime would export them)."""
    if (env.get("OTEL_SDK_DISABLED") or "").strip().lower() == "true":
        return False
    return bool(cfg.otlp_endpoint or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_ENDPOINT"))
