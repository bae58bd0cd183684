"""The worker's registration credential (docs/registry.md "Write credentials"): what lets it register,
renew and deregister its own instances under orrery.functions.<namespace>.<function>.<revision>.
Locally in ORRERY_REGISTRY_CREDENTIAL, on Kubernetes the revision's mounted Secret
(--registry-credential-file), for pool workers in the specialize body. Never logged."""
import json
import re

from .worker_instance import worker_service_name

_HEX = re.compile(r"[0-9a-f]{64}")


class RegistryCredentialError(Exception):
    pass


def _is_credential_file(v):
    return isinstance(v, dict) and isinstance(v.get("namespace"), str) and isinstance(v.get("service"), str) and isinstance(v.get("token"), str) and bool(_HEX.fullmatch(v["token"]))


def credential_from_claims(claims, namespace, fn, revision, source):
    """The bare credential, once its claims name exactly the revision this worker serves."""
    if not _is_credential_file(claims):
        raise RegistryCredentialError("%s must be {namespace, service, token} with a 64-hex-digit token" % source)
    service = worker_service_name(namespace, fn, revision)
    if claims["namespace"] != namespace or claims["service"] != service:
        raise RegistryCredentialError("%s is for %s/%s but this worker serves %s/%s" % (source, claims["namespace"], claims["service"], namespace, service))
    return claims["token"]


def credential_from_env(value):
    v = value.strip()
    if not _HEX.fullmatch(v):
        raise RegistryCredentialError("ORRERY_REGISTRY_CREDENTIAL must be 64 lowercase hex digits (as the operator mints it)")
    return v


def read_registry_credential_file(path, namespace, fn, revision):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except FileNotFoundError:
        raise RegistryCredentialError("registry credential file %s does not exist (is the revision's registry Secret mounted?)" % path) from None
    except OSError as e:
        raise RegistryCredentialError("cannot read registry credential file %s: %s" % (path, e.strerror or e)) from None
    try:
        claims = json.loads(text)
    except ValueError:
        raise RegistryCredentialError("registry credential file %s is not JSON {namespace, service, token}" % path) from None
    return credential_from_claims(claims, namespace, fn, revision, "registry credential file %s" % path)
