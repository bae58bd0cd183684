"""How a worker appears in the registry (StellMap data model), exactly as the Node runtime registers
(apps/runtime/src/registration/worker-instance.ts): service orrery.functions.<namespace>.<function>.<revision>,
i.e. organization=orrery, businessDomain=functions, capabilityDomain=<namespace>,
application=<function>, role=<revision>; the registry namespace is the function's namespace."""
import os

ORGANIZATION = "orrery"
BUSINESS_DOMAIN = "functions"
DEFAULT_LEASE_TTL_SECONDS = 30


def worker_service_name(namespace, fn, revision):
    return ".".join((ORGANIZATION, BUSINESS_DOMAIN, namespace, fn, revision))


def register_body(w, lease_ttl_seconds=DEFAULT_LEASE_TTL_SECONDS, pid=None):
    """`w`: {namespace, function, revision, executor, instanceId, host, port, adminPort?, containerConcurrency}."""
    endpoints = [{"name": "http", "protocol": "http", "host": w["host"], "port": w["port"]}]
    if w.get("adminPort") is not None:
        endpoints.append({"name": "admin", "protocol": "http", "host": w["host"], "port": w["adminPort"]})
    return {
        "namespace": w["namespace"],
        "organization": ORGANIZATION,
        "businessDomain": BUSINESS_DOMAIN,
        "capabilityDomain": w["namespace"],
        "application": w["function"],
        "role": w["revision"],
        "service": worker_service_name(w["namespace"], w["function"], w["revision"]),
        "instanceId": w["instanceId"],
        "labels": {
            "orrery.dev/function": w["function"],
            "orrery.dev/revision": w["revision"],
            "orrery.dev/executor": w["executor"],
        },
        "metadata": {
            "orrery.dev/container-concurrency": str(w["containerConcurrency"]),
            "pid": str(os.getpid() if pid is None else pid),
        },
        "endpoints": endpoints,
        "leaseTtlSeconds": lease_ttl_seconds,
    }


def instance_key(w, lease_ttl_seconds=DEFAULT_LEASE_TTL_SECONDS):
    return {
        "namespace": w["namespace"],
        "service": worker_service_name(w["namespace"], w["function"], w["revision"]),
        "instanceId": w["instanceId"],
        "leaseTtlSeconds": lease_ttl_seconds,
    }
