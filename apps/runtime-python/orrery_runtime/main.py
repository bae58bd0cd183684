"""orrery-runtime-python: the wiring of the Python worker, step for step the Node runtime's
(apps/runtime/src/main.ts): secrets read before anything listens, deploy mode loads before it
listens, pool mode warms up, `listening http://HOST:PORT` on stdout when ready, registration,
SIGTERM/SIGINT drain. Everything else it says is a JSON record on stderr."""
import os
import random
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading

from .activate_function import activate_function
from .advertise_host import advertise_host
from .config import PROGRAM, USAGE, ConfigError, parse_runtime_config, tracing_requested
from .load_error import LoadError
from .mounted_token_refresh import MountedTokenRefresh
from .registrar import Registrar
from .registry_credential import RegistryCredentialError, credential_from_env, read_registry_credential_file
from .specialize_gate import SpecializeGate, SpecializeVerifierError, read_specialize_verifier, remove_specialize_verifier
from .specializer import create_specializer
from .state_token_file import StateTokenFileError, read_state_token_file
from .structured_log import Logger, register_secret, resolve_log_format
from .warm_up import warm_up
from .worker_server import WorkerServer


def _fail(message, code):
    sys.stderr.write("%s: %s\n" % (PROGRAM, message))
    sys.stderr.flush()
    os._exit(code)


def main(argv):
    if argv[:1] == ["write-specialize-verifier"]:
        from .verifier_init import VerifierInitError, parse_verifier_init_args, write_specialize_verifier_file

        try:
            write_specialize_verifier_file(parse_verifier_init_args(argv[1:], os.environ))
        except (VerifierInitError, OSError, ValueError) as e:
            _fail("write-specialize-verifier: %s" % e, 2)
        return 0

    try:
        cfg = parse_runtime_config(argv, os.environ)
    except ConfigError as e:
        _fail("%s\n%s" % (e, USAGE), 2)
    fmt, problem = resolve_log_format(os.environ, sys.stderr.isatty())
    if problem:
        _fail(problem, 2)
    log = Logger("runtime", cfg.log_level, fmt)

    # Secrets mounted as files (Kubernetes) are read once, before anything listens: a missing or
    # mismatched file is a configuration error, reported like a bad flag.
    try:
        state_token = read_state_token_file(cfg.state_token_file, cfg.namespace, cfg.state_keyspace) if cfg.state_token_file else cfg.state_token
        verifier, spent = read_specialize_verifier(cfg.specialize_verifier_file, cfg.specialize_verifier)
        if cfg.registry_credential_file:
            registry_credential = read_registry_credential_file(cfg.registry_credential_file, cfg.namespace, cfg.function or "", cfg.revision or "")
        else:
            registry_credential = credential_from_env(cfg.registry_credential) if cfg.registry_credential else None
    except (StateTokenFileError, SpecializeVerifierError, RegistryCredentialError) as e:
        _fail(str(e), 2)
    for secret in (state_token, registry_credential, verifier):
        register_secret(secret)
    # The credential is the registrar's alone: function code (loaded later) must not find it in the environment.
    os.environ.pop("ORRERY_REGISTRY_CREDENTIAL", None)
    os.environ.pop("ORRERY_SPECIALIZE_VERIFIER", None)
    if cfg.mode == "pool" and not verifier and not spent:
        log.warn("no specialize verifier (--specialize-verifier-file or ORRERY_SPECIALIZE_VERIFIER): this pool worker refuses every specialize call")
    if spent:
        log.warn("the specialize verifier file is gone: this worker was specialized before its container restarted; it stays spent (not ready)")
    if tracing_requested(cfg, os.environ):
        log.warn("tracing was asked for, but the Python runtime records no spans; ctx.trace carries the caller's traceparent unchanged (docs/python.md)")

    def consumed():
        if cfg.specialize_verifier_file:
            try:
                remove_specialize_verifier(cfg.specialize_verifier_file)
            except OSError as e:
                log.warn("cannot remove the used specialize verifier file", {"error": str(e)})

    gate = SpecializeGate(verifier, spent, consumed)
    work_dir = cfg.work_dir or tempfile.mkdtemp(prefix="orrery-runtime-")

    def remove_work_dir():
        # A work dir we made ourselves (holding inline code and maybe the token file) goes with us.
        if not cfg.work_dir:
            shutil.rmtree(work_dir, ignore_errors=True)

    # A stray exception in a thread of function code must not go unsaid (nor take others down).
    threading.excepthook = lambda a: log.error("unhandled exception in function code", {"error": "%s: %s" % (a.exc_type.__name__, a.exc_value)})

    registrar = [None]
    refresh = [None]
    self_address = {}

    def start_registration(a):
        if not cfg.registry_urls or not self_address:
            return
        # Registry instance ids allow letters, digits and . _ : @ -; hostnames may hold anything else.
        instance_id = cfg.instance_id or "%s-%s-%d-%06x" % (a["revision"], re.sub(r"[^A-Za-z0-9._:@-]", "-", socket.gethostname()), self_address["port"], random.getrandbits(24))
        r = Registrar(
            cfg.registry_urls,
            {
                "namespace": a["namespace"], "function": a["function"], "revision": a["revision"], "executor": cfg.mode,
                "instanceId": instance_id, "host": self_address["host"], "port": self_address["port"], "adminPort": self_address.get("adminPort"),
                "containerConcurrency": a["containerConcurrency"],
            },
            log.child({"namespace": a["namespace"], "function": a["function"], "revision": a["revision"]}),
            credential=a.get("registryCredential"),
            lease_ttl_seconds=cfg.lease_ttl_seconds,
        )
        registrar[0] = r
        r.start()

    def activate_pooled(a):
        st = a.get("state")
        register_secret(st["credentials"]["token"] if st else None)
        register_secret(a.get("registryCredential"))
        server.activate(activate_function(a, work_dir, log, cfg.max_source_bytes))
        start_registration(a)
        return "%s:%d" % (self_address["host"], self_address["port"])

    server = WorkerServer(
        cfg.host, cfg.port, cfg.admin_port, cfg.max_request_bytes, log,
        ready_without_function=cfg.mode == "pool",
        admit_specialize=gate.admit,
        specialize=create_specializer(activate_pooled, cfg.state_url, on_failed=lambda: server.mark_spent()) if cfg.mode == "pool" else None,
    )
    if gate.spent:
        server.mark_spent()

    # Deploy mode loads the code before listening: a worker that cannot load never looks ready.
    deployed = None
    if cfg.mode == "deploy":
        deployed = {
            "namespace": cfg.namespace, "function": cfg.function, "revision": cfg.revision, "source": cfg.source,
            "entrypoint": cfg.entrypoint, "containerConcurrency": cfg.container_concurrency, "timeoutSeconds": cfg.timeout_seconds,
            "state": {"url": cfg.state_url, "credentials": {"namespace": cfg.namespace, "keyspace": cfg.state_keyspace, "token": state_token}, "fencing": cfg.state_fencing} if cfg.state_keyspace else None,
            "registryCredential": registry_credential,
        }
        try:
            server.activate(activate_function(deployed, work_dir, log, cfg.max_source_bytes))
        except LoadError as e:
            remove_work_dir()
            _fail("cannot load function %s/%s (%s): %s: %s" % (cfg.namespace, cfg.function, cfg.revision, e.code, e.message), 1)
        except Exception as e:  # noqa: BLE001
            remove_work_dir()
            _fail("cannot load function %s/%s (%s): %s: %s" % (cfg.namespace, cfg.function, cfg.revision, type(e).__name__, e), 1)
        if cfg.state_token_file and cfg.state_keyspace:
            state = server.active.ctx.state
            # The SDK's own re-read of its token file (it does it after a 401; statesvc refuses a stale token with 403).
            refresh[0] = MountedTokenRefresh(cfg.state_token_file, work_dir, deployed["state"]["credentials"], log, on_change=state._load_token)

    try:
        listening = server.listen()
    except OSError as e:
        _fail("cannot listen on %s:%d: %s" % (cfg.host, cfg.port, e.strerror or e), 1)
    self_address.update({"host": cfg.advertise_host or advertise_host(cfg.host, os.environ), "port": listening["port"]})
    if listening["adminPort"] is not None:
        self_address["adminPort"] = listening["adminPort"]
    # A generic worker pays its one-time costs before anyone learns its address (warm_up.py).
    if cfg.mode == "pool":
        try:
            log.info("warmed up", {"ms": warm_up(server, listening["port"], work_dir, log)})
        except Exception as e:  # noqa: BLE001
            log.warn("warm-up failed; the first specialization pays the one-time costs", {"error": str(e)})
    line = "listening %s admin %s\n" % (listening["url"], listening["adminUrl"]) if listening["adminUrl"] else "listening %s\n" % listening["url"]
    sys.stdout.write(line)
    sys.stdout.flush()
    log.info("worker ready", {"mode": cfg.mode, "url": listening["url"], "adminUrl": listening["adminUrl"], "workDir": work_dir})
    if deployed:
        start_registration(deployed)
    if refresh[0]:
        refresh[0].start()

    stop = threading.Event()
    signals = []

    def on_signal(signum, _frame):
        signals.append(signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    while not stop.wait(0.5):
        # Whoever started this worker died without stopping it (a killed local operator): nobody would.
        if cfg.exit_with_parent is not None and os.getppid() != cfg.exit_with_parent:
            signals.append("parent exited")
            break

    pending = server.stats()["current"]
    log.info("draining", {"signal": signals[0] if signals else "SIGTERM", "inFlight": pending["inFlight"], "queued": pending["queued"], "drainTimeoutSeconds": cfg.drain_timeout_seconds})
    if refresh[0]:
        refresh[0].stop()
    # readyz turns 503 and new requests are refused at once; deregistration runs beside the drain.
    result = {}
    drainer = threading.Thread(target=lambda: result.setdefault("clean", server.drain(cfg.drain_timeout_seconds)), name="drain", daemon=True)
    drainer.start()
    if registrar[0]:
        registrar[0].stop()
    drainer.join()
    if result.get("clean"):
        log.info("drained; exiting")
    else:
        log.warn("drain timeout passed with requests still in flight; exiting anyway")
    remove_work_dir()
    sys.stdout.flush()
    sys.stderr.flush()
    # Not sys.exit: a handler thread still running past the drain timeout must not hold the exit.
    os._exit(0)
