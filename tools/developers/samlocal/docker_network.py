"""The Docker network the function containers join, and the address they reach this host by.

A user-defined bridge of our own: its gateway is an address of this host that only containers on
that network reach, so the DynamoDB/SQS endpoint listens there and nowhere else (Linux Docker
Engine has no host.docker.internal, and `--docker-network host` is not host networking to SAM).
"""

import subprocess


def docker_available() -> str | None:
    """None when the Docker daemon answers; else why not."""
    try:
        probe = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True)
    except FileNotFoundError:
        return "docker is not installed (Debian: apt-get install docker.io)"
    if probe.returncode != 0:
        return f"the Docker daemon does not answer ({probe.stderr.strip()}); start it (e.g. dockerd &)"
    return None


def ensure_network(name: str) -> str:
    """Create the bridge network `name` if missing; its gateway address."""
    inspect = ["docker", "network", "inspect", name, "--format", "{{range .IPAM.Config}}{{.Gateway}} {{end}}"]
    found = subprocess.run(inspect, capture_output=True, text=True)
    if found.returncode != 0:
        subprocess.run(["docker", "network", "create", "--driver", "bridge", name], check=True, capture_output=True)
        found = subprocess.run(inspect, capture_output=True, text=True, check=True)
    gateways = [address for address in found.stdout.split() if "." in address]  # the IPv4 one
    if not gateways:
        raise SystemExit(f"docker network {name} has no IPv4 gateway")
    return gateways[0]


def remove_function_containers(network: str) -> None:
    """SAM's function containers left on `network` (a `sam` process that was killed leaves them)."""
    listed = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"network={network}", "--filter", "label=sam.cli.container.type=lambda"],
        capture_output=True,
        text=True,
        check=True,
    )
    if listed.stdout.split():
        subprocess.run(["docker", "rm", "-f", *listed.stdout.split()], capture_output=True, check=False)
