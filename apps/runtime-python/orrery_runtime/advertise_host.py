"""The address other machines should use to reach this worker (apps/runtime/src/advertise-host.ts): the
bind host, unless it is a wildcard, in which case POD_IP (Kubernetes downward API) or this machine's
first external IPv4."""
import socket


def advertise_host(bind_host, env):
    if bind_host not in ("0.0.0.0", "::", ""):
        return bind_host
    if env.get("POD_IP"):
        return env["POD_IP"]
    try:
        # No packet is sent: connecting a UDP socket only picks the outgoing interface.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            address = s.getsockname()[0]
            if not address.startswith("127."):
                return address
    except OSError:
        pass
    return "127.0.0.1"
