"""Runs Malard & Stewart's distributed hash table as the paper does: p separate JVM processes
(java/dht's DhtMain, one per process) on loopback, each running the same micro-benchmark, and
reads back the line of JSON each one prints. The notebooks and `./lab bench dht` start it here."""
from __future__ import annotations

import json
import socket
import subprocess
import time
from contextlib import ExitStack

from handofflab import javabuild
from handofflab.console import LabError

PATTERNS = ("n-n", "1-n", "n-1")
# what runs the workload: the kit's table, the paper's raw-put baseline on the same transport, or the
# store a user would pick instead, Hazelcast's IMap (java/dht-hazelcast), one member per process
IMPLS = ("dht", "raw-put", "hazelcast")


def free_ports(k: int) -> list[int]:
    """k loopback ports free right now (held together, so they differ)."""
    with ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(k)]
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]


def run(p: int = 3, pattern: str = "n-n", values: int = 10_000, n: int = 1, blocking: int = 100, q: int = 4,
        impl: str = "dht", timeout: float = 300) -> list[dict]:
    """One run: p processes, each the paper's insert / find / delete loops; their JSON lines, by process
    id. An error if any process failed, or if any value was lost, duplicated or changed. `impl` "raw-put":
    the paper's baseline, the inserts only, into an array at the target (see Target.rawPut);
    "hazelcast": the same loops on a Hazelcast cluster (q does not apply)."""
    if pattern not in PATTERNS:
        raise LabError(f"no pattern '{pattern}'", f"use one of {', '.join(PATTERNS)}")
    if impl not in IMPLS:
        raise LabError(f"no implementation '{impl}'", f"use one of {', '.join(IMPLS)}")
    if impl == "hazelcast":
        main, cp, extra = "handofflab.dht.hazelcast.HazelcastMain", javabuild.classpath("dht-hazelcast"), []
    else:
        main, cp = "handofflab.dht.DhtMain", javabuild.classpath("dht")
        extra = ["--q", str(q), *(["--raw-put"] if impl == "raw-put" else [])]
    for attempt in range(3):  # a port taken by another program between choosing and binding: choose again
        peers = ",".join(f"127.0.0.1:{port}" for port in free_ports(p))
        procs = [subprocess.Popen(["java", "-Xmx512m", "-cp", cp, main, "--id", str(i),
                                   "--peers", peers, "--pattern", pattern, "--values", str(values), "--n", str(n),
                                   "--L", str(blocking), *extra],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(p)]
        deadline = time.monotonic() + timeout
        outs = []
        try:
            for proc in procs:
                out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
                outs.append((proc.returncode, out, err))
        except subprocess.TimeoutExpired:
            raise LabError(f"the DHT run ({p} processes, {pattern}, {values} values) ran past {timeout:.0f} s",
                           "run it with fewer values, or look for a process that hangs (jstack its pid)")
        finally:
            for proc in procs:
                proc.kill()
        if any("cannot listen on" in err or "Address already in use" in err for _, _, err in outs) and attempt < 2:
            continue
        failed = [f"process {i} exit {code}: " + (_wrong(out) if code == 1 else (err.strip().splitlines() or [""])[-1])
                  for i, (code, out, err) in enumerate(outs) if code != 0]
        if failed:
            raise LabError("the DHT run failed: " + "; ".join(failed), "the message names the process and what went wrong")
        return [json.loads(out.strip().splitlines()[-1]) for _, out, _ in outs]
    raise AssertionError("unreachable")


def _wrong(out: str) -> str:
    """What a process that exited 1 found wrong (its JSON line says how many values, and the first)."""
    try:
        r = json.loads(out.strip().splitlines()[-1])
        return f"{r['wrong']} value(s) lost, duplicated or changed, first: {r['first_wrong']}"
    except (ValueError, IndexError, KeyError):
        return "it printed no result: " + out[-300:]
