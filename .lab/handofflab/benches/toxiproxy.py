"""A network with latency between processes on one machine: Shopify's Toxiproxy, a TCP proxy whose `latency`
toxic holds each chunk for a set time, per direction (this kernel has no netem qdisc, and Toxiproxy is the tool
test harnesses use when `tc` is not there). The kit builds toxiproxy-server from the Go module proxy on first
use (toolchain.toxiproxy_server), starts it on a free loopback port for the length of a block, makes a proxy in
front of each process for one run and removes it after, and ends the server with the block, however it ends.

Its HTTP API (documented in Toxiproxy's README): POST /proxies makes a proxy, POST /proxies/NAME/toxics adds a
toxic to it (and to the connections it already carries), DELETE /proxies/NAME removes it and closes its
connections."""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from handofflab.ground import toolchain
from handofflab.ground.console import LabError


@dataclass(frozen=True)
class Latency:
    """Every link between two of a run's processes through the running Toxiproxy `proxy`, each direction held
    `ms` ± `jitter` ms."""
    proxy: "Toxiproxy"
    ms: int
    jitter: int = 0


class Toxiproxy:
    """A running toxiproxy-server: its API on 127.0.0.1:`port`."""

    def __init__(self, port: int, log: Path):
        self.port, self.log = port, log
        self._names = itertools.count()

    def call(self, method: str, path: str, body: dict | None = None):
        """One API call; its JSON answer (None for an empty one). An error names what Toxiproxy said."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", method=method,
                                         data=json.dumps(body).encode() if body is not None else None,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                said = answer.read()
        except urllib.error.HTTPError as e:
            raise LabError(f"Toxiproxy refused {method} {path}: {e.code} {e.read().decode(errors='replace')[:300]}",
                           f"its log is {self.log}")
        except OSError as e:
            raise LabError(f"Toxiproxy's API on port {self.port} did not answer {method} {path}: {e}",
                           f"its log is {self.log}; did toxiproxy-server end?")
        return json.loads(said) if said.strip() else None

    @contextlib.contextmanager
    def links(self, upstreams: list[int], listens: list[int], latency_ms: int, jitter_ms: int = 0):
        """A proxy on each loopback port of `listens` in front of the port of `upstreams` at the same place (a
        process's listening port), each direction held latency_ms ± jitter_ms (no toxic at all at 0: the proxy
        alone); every proxy is removed when the block ends. The caller chooses both lists of ports together
        (toolchain.free_ports): a proxy left to take any free port could take a process's port before the process
        binds it, and the process's peers would then reach another proxy."""
        made = []
        try:
            for upstream, listen in zip(upstreams, listens, strict=True):
                name = f"handofflab-{os.getpid()}-{next(self._names)}"
                self.call("POST", "/proxies", {"name": name, "listen": f"127.0.0.1:{listen}",
                                               "upstream": f"127.0.0.1:{upstream}", "enabled": True})
                made.append(name)
                for stream in ("upstream", "downstream") if latency_ms > 0 else ():
                    self.call("POST", f"/proxies/{name}/toxics", {
                        "name": f"latency_{stream}", "type": "latency", "stream": stream, "toxicity": 1.0,
                        "attributes": {"latency": latency_ms, "jitter": jitter_ms}})
            yield
        finally:
            for name in made:
                with contextlib.suppress(LabError):   # a server already ended takes its proxies with it
                    self.call("DELETE", f"/proxies/{name}")


@contextlib.contextmanager
def started(log: Path):
    """toxiproxy-server (built on first use) on a free loopback port, its log appended to `log`, for the length
    of the block; ended with it (SIGTERM, then killed) however the block ends, Ctrl-C and SIGTERM included."""
    exe = toolchain.toxiproxy_server()
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "LOG_LEVEL": "error"}   # info and warn log each connection: thousands of lines in a run
    for attempt in range(3):   # a port another program took between choosing and binding: choose again
        port = toolchain.free_ports(1)[0]
        with toolchain.run_beside([[str(exe), "-host", "127.0.0.1", "-port", str(port)]], "Toxiproxy",
                                  toolchain.TOXIPROXY_FIX, stop=signal.SIGTERM, grace=5, log=log, env=env) as (proc,):
            proxy = Toxiproxy(port, log)
            deadline = time.monotonic() + 30
            while proc.poll() is None and time.monotonic() < deadline:
                try:
                    proxy.call("GET", "/proxies")
                    break
                except LabError:
                    time.sleep(0.05)
            else:
                said = log.read_text(errors="replace")[-600:] if log.exists() else ""
                if proc.poll() is not None and "address already in use" in said and attempt < 2:
                    continue
                raise LabError(f"toxiproxy-server did not start ({'it exited ' + str(proc.returncode) if proc.poll() is not None else 'no answer in 30 s'}): "
                               f"{said.strip().splitlines()[-1] if said.strip() else 'it printed nothing'}",
                               f"its log is {log}; rebuild it with: rm -rf {toolchain.TOXIPROXY_SERVER.parent}")
            yield proxy
            return
