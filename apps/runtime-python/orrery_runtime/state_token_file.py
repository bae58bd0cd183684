"""The state token file (docs/functions.md "The state token"): `<dir>/.orrery-state-token`, JSON
`{namespace, keyspace, token}`, mode 0444, written to a temporary name and renamed so a reader (the
SDK re-reads it after a 401) never sees half a file; and the reading of a mounted one (Kubernetes)."""
import json
import os
import time

STATE_TOKEN_FILE = ".orrery-state-token"


def state_token_file_body(creds):
    """Exactly the claims, in the order @orrery/spec writes them (stateTokenFileBody)."""
    return json.dumps({"namespace": creds["namespace"], "keyspace": creds["keyspace"], "token": creds["token"]}, separators=(",", ":"))


def write_state_token_file(directory, creds):
    for k in ("namespace", "keyspace", "token"):
        if not isinstance(creds.get(k), str) or creds[k] == "":
            raise ValueError("state credentials need a non-empty %s" % k)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, STATE_TOKEN_FILE)
    tmp = "%s.%d.%d.tmp" % (path, os.getpid(), int(time.time() * 1000))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    with os.fdopen(fd, "w") as f:
        f.write(state_token_file_body(creds))
    os.chmod(tmp, 0o444)  # the umask may have removed bits
    os.replace(tmp, path)
    return path


class StateTokenFileError(Exception):
    pass


def read_state_token_file(path, namespace, keyspace):
    """The token of a mounted file: the JSON this module writes, or a bare token. Claims in a JSON
    file must match the worker's flags (a token for another keyspace would only fail later)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except FileNotFoundError:
        raise StateTokenFileError("state token file %s does not exist (is the state Secret mounted?)" % path) from None
    except OSError as e:
        raise StateTokenFileError("cannot read state token file %s: %s" % (path, e.strerror or e)) from None
    if text == "":
        raise StateTokenFileError("state token file %s is empty" % path)
    if not text.startswith("{"):
        return text
    try:
        claims = json.loads(text)
    except ValueError:
        raise StateTokenFileError('state token file %s starts with "{" but is not valid JSON' % path) from None
    token = claims.get("token") if isinstance(claims, dict) else None
    if not isinstance(token, str) or token == "":
        raise StateTokenFileError('state token file %s has no "token"' % path)
    if claims.get("keyspace") is not None and claims["keyspace"] != keyspace:
        raise StateTokenFileError('state token file %s is for keyspace "%s" but --state-keyspace is "%s"' % (path, claims["keyspace"], keyspace))
    if claims.get("namespace") is not None and claims["namespace"] != namespace:
        raise StateTokenFileError('state token file %s is for namespace "%s" but --namespace is "%s"' % (path, claims["namespace"], namespace))
    return token
