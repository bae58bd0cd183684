"""Pool mode (Fission's poolmgr): the body of POST /v1/specialize, checked with the Node runtime's rules
and messages (apps/runtime/src/specialize.ts). It carries the assignment deploy mode reads from flags;
the state token arrives here because a running process cannot get new environment variables. Pure."""
import re

from .registry_credential import RegistryCredentialError, credential_from_claims

_ENV_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")


def _nonempty_str(v):
    return isinstance(v, str) and len(v) > 0


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def package_source_problems(folder, main):
    """The problems of a package source (dir, main), as the Node runtime words them. dir is absolute: a pool
    worker's working directory is its own, not the executor's. main stays inside it (relative, no ".."); the
    loader checks again after resolving symlinks (function_source.package_module_path)."""
    problems = []
    if not _nonempty_str(folder) or not folder.startswith("/") or "\0" in folder:
        problems.append("source.dir must be the absolute path of the built package folder")
    if main is not None:
        parts = re.split(r"[\\/]", main) if isinstance(main, str) else []
        if not _nonempty_str(main) or main.startswith("/") or "\0" in main or ".." in parts or re.match(r"[a-zA-Z]:", main):
            problems.append('source.main must be a path relative to source.dir, without ".." (e.g. "src/handler.mjs")')
    return problems


def parse_specialize_request(body, default_state_url=None):
    """(assignment, None) or (None, error text)."""
    if not isinstance(body, dict):
        return None, "body must be a JSON object"
    b = body
    problems = []
    if not _nonempty_str(b.get("function")):
        problems.append("function (non-empty string) is required")
    if not _nonempty_str(b.get("revision")):
        problems.append("revision (non-empty string) is required")
    if b.get("namespace") is not None and not _nonempty_str(b.get("namespace")):
        problems.append("namespace must be a non-empty string")
    if b.get("entrypoint") is not None and not _nonempty_str(b.get("entrypoint")):
        problems.append("entrypoint must be a non-empty string")
    src = b.get("source")
    kinds = [k for k in ("inline", "url", "file", "dir") if isinstance(src, dict) and src.get(k) is not None]
    if len(kinds) != 1 or not _nonempty_str(src[kinds[0]]):
        problems.append("source must hold exactly one of inline, url, file or dir, as a non-empty string")
    elif kinds[0] == "dir":
        problems.extend(package_source_problems(src["dir"], src.get("main")))
    if (not kinds or kinds[0] != "dir") and isinstance(src, dict) and src.get("main") is not None:
        problems.append("source.main goes with source.dir (the module inside a package folder)")
    cc = 0 if b.get("containerConcurrency") is None else b["containerConcurrency"]
    if not _is_int(cc) or cc < 0:
        problems.append("containerConcurrency must be an integer ≥ 0")
    timeout = 300 if b.get("timeoutSeconds") is None else b["timeoutSeconds"]
    if not _is_int(timeout) or timeout < 1:
        problems.append("timeoutSeconds must be an integer ≥ 1")
    creds = b.get("stateCredentials")
    state_url = b.get("stateUrl") if b.get("stateUrl") is not None else default_state_url
    if creds is not None:
        if not isinstance(creds, dict) or not all(_nonempty_str(creds.get(k)) for k in ("namespace", "keyspace", "token")):
            problems.append("stateCredentials must be {namespace, keyspace, token}, all non-empty strings")
        if not _nonempty_str(state_url):
            problems.append("stateCredentials need stateUrl (or ORRERY_STATE_URL on the worker)")
    fencing = b.get("stateFencing")
    if fencing is not None and not isinstance(fencing, bool):
        problems.append("stateFencing must be true or false")
    if fencing is True and creds is None:
        problems.append("stateFencing needs stateCredentials")
    env = {} if b.get("env") is None else b["env"]
    if not isinstance(env, dict):
        problems.append("env must be an object of name → string value")
    else:
        for name, value in env.items():
            if not _ENV_NAME.fullmatch(name) or name.startswith("ORRERY_"):
                problems.append('env name "%s" is not allowed (letters, digits, "_", "-", "."; ORRERY_* belongs to the platform)' % name)
            elif not isinstance(value, str):
                problems.append("env %s must be a string" % name)
    namespace = b.get("namespace") or "default"
    registry_credential = None
    if b.get("registryCredential") is not None and not problems:
        try:
            registry_credential = credential_from_claims(b["registryCredential"], namespace, b["function"], b["revision"], "registryCredential")
        except RegistryCredentialError as e:
            problems.append(str(e))
    if problems:
        return None, "invalid specialize request: " + "; ".join(problems)
    assignment = {
        "namespace": namespace,
        "function": b["function"],
        "revision": b["revision"],
        "source": {"dir": src["dir"], "main": src["main"]} if kinds[0] == "dir" and src.get("main") is not None else {kinds[0]: src[kinds[0]]},
        "entrypoint": b.get("entrypoint"),
        "containerConcurrency": cc,
        "timeoutSeconds": timeout,
        "state": {"url": state_url, "credentials": {"namespace": creds["namespace"], "keyspace": creds["keyspace"], "token": creds["token"]}, "fencing": fencing is True} if creds else None,
        "registryCredential": registry_credential,
        "env": env or None,
    }
    return assignment, None
