"""`write-specialize-verifier`: the Kubernetes pool pod's init container runs the runtime image with
this subcommand (apps/operator render/pool.ts names it for every runtime image). It is the only
container that mounts the Environment's pool key: it derives this pod's nonce and writes only the
nonce's SHA-256 where the runtime container reads it (as apps/runtime/src/specialize-verifier-init.ts)."""
import os

from .specialize_gate import derive_specialize_nonce, specialize_verifier


class VerifierInitError(Exception):
    pass


_FLAGS = ("pool-key-file", "namespace", "pod-uid", "out")


def parse_verifier_init_args(argv, env):
    values = {}
    i = 0
    while i < len(argv):
        name, eq, value = argv[i][2:].partition("=") if argv[i].startswith("--") else ("", "", "")
        if name not in _FLAGS:
            raise VerifierInitError("Unknown option '%s'" % argv[i])
        if not eq:
            if i + 1 >= len(argv):
                raise VerifierInitError("Option '--%s <value>' argument missing" % name)
            value = argv[i + 1]
            i += 1
        values[name] = value
        i += 1
    o = {
        "pool_key_file": values.get("pool-key-file"),
        "namespace": values.get("namespace") or env.get("POD_NAMESPACE"),
        "pod_uid": values.get("pod-uid") or env.get("POD_UID"),
        "out": values.get("out"),
    }
    missing = [m for m, absent in (("--pool-key-file", not o["pool_key_file"]), ("--namespace (or POD_NAMESPACE)", not o["namespace"]), ("--pod-uid (or POD_UID)", not o["pod_uid"]), ("--out", not o["out"])) if absent]
    if missing:
        raise VerifierInitError("write-specialize-verifier needs " + ", ".join(missing))
    return o


def write_specialize_verifier_file(o):
    try:
        with open(o["pool_key_file"], encoding="utf-8") as f:
            key = f.read().strip()
    except OSError as e:
        raise VerifierInitError("cannot read the pool key %s: %s (is the Environment's specialize Secret mounted?)" % (o["pool_key_file"], e.strerror or e)) from None
    if key == "":
        raise VerifierInitError("the pool key %s is empty" % o["pool_key_file"])
    verifier = specialize_verifier(derive_specialize_nonce(key, o["namespace"], o["pod_uid"]))
    out = o["out"]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    tmp = "%s.tmp-%d" % (out, os.getpid())
    # A hash of the nonce: reading it gives nothing; 0444 so the runtime container may run as another uid.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o444)
    with os.fdopen(fd, "w") as f:
        f.write(verifier + "\n")
    os.chmod(tmp, 0o444)
    os.replace(tmp, out)
