"""The dev container every student copy carries (`.devcontainer/`): one machine for every student, on
macOS, Windows or a cloud workspace, with what the copy's `./lab doctor` asks for. The image is
Debian's, as the kit's own hosts are, and takes everything from Debian's packages; the copy's own
`./lab` installs the rest (its .venv from PyPI, TLC from Maven Central) when the container is made.

The container runs as root with the capabilities the grader's jail needs (namespaces), so that
`./lab check-lab` checks a student's code walled in as the instructor's grading does; without them
the jail is weak and check-lab refuses, as it does on any host that cannot isolate."""
from __future__ import annotations

import json

# Debian 12's python3 is 3.11, the kit's least; util-linux and iproute2 are the jail's unshare, setpriv and ip.
DEBIAN_PACKAGES = ("openjdk-17-jdk-headless", "maven", "python3", "python3-venv", "git", "util-linux", "iproute2")

DOCKERFILE = f"""# The student copy's machine: Debian 12 with the tools `./lab` cannot install itself.
FROM debian:bookworm
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends {' '.join(DEBIAN_PACKAGES)} \\
 && rm -rf /var/lib/apt/lists/*
"""

# Made once, when the container is: the copy's .venv (the first `./lab`), TLC (fetched by a spec's check), then
# the doctor's table, which fails the creation if anything the copy needs is still missing.
POST_CREATE = "./lab check specs NotifyBuffer --quiet && ./lab doctor"

EXTENSIONS = ("tlaplus.vscode-ide",        # TLA+: the specs, and TLC from the editor
              "vscjava.vscode-java-pack",  # Java: the starters and the public tests
              "ms-python.python",          # Python: the kit's ./lab
              "ms-toolsai.jupyter")        # Jupyter: a student's own notebooks (the book shows the kit's, executed)


def devcontainer(labs: list[str]) -> dict:
    """devcontainer.json, as the Dev Container specification reads it (containers.dev/implementors/json_reference)."""
    return {
        "name": f"Handoff Lab: {', '.join(labs)}",
        "build": {"dockerfile": "Dockerfile", "context": ".."},
        # the jail's namespaces (unshare) need these, as they need root on any host
        "runArgs": ["--cap-add=SYS_ADMIN", "--security-opt", "seccomp=unconfined",
                    "--security-opt", "apparmor=unconfined"],
        "remoteUser": "root",
        "postCreateCommand": POST_CREATE,
        "customizations": {"vscode": {"extensions": list(EXTENSIONS)}},
    }


def files(labs: list[str]) -> dict[str, str]:
    """The copy's .devcontainer/ folder: path -> text."""
    return {".devcontainer/devcontainer.json": json.dumps(devcontainer(labs), indent=2) + "\n",
            ".devcontainer/Dockerfile": DOCKERFILE}
