"""Runs Malard & Stewart's distributed hash table as the paper does: p separate JVM processes
(java/dht's DhtMain, one per process) on loopback, each running the same micro-benchmark, and
reads back the line of JSON each one prints. The notebooks and `./lab bench dht` start it here."""
from __future__ import annotations

import contextlib
import json
import subprocess
import time
from pathlib import Path

from handofflab.java import javabuild
from handofflab.ground import toolchain
from handofflab.ground.console import LabError
from handofflab.benches.toxiproxy import Latency

PATTERNS = ("n-n", "1-n", "n-1")
# what runs the workload: the kit's table, the paper's raw-put baseline on the same transport, or the
# store a user would pick instead, Hazelcast's IMap (java/dht-hazelcast), one member per process
IMPLS = ("dht", "raw-put", "hazelcast")


# What Hazelcast's documentation ("Running in Modular Java") asks a member on JDK 11+ to be started with: without
# these it warns that it runs "without proper access to required Java packages", which it uses for speed.
HAZELCAST_JVM = ["--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
                 "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                 "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
                 "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"]


def run(p: int = 3, pattern: str = "n-n", values: int = 10_000, n: int = 1, blocking: int = 100, q: int = 4,
        impl: str = "dht", timeout: float = 300, buffers: int | None = None, latency: Latency | None = None) -> list[dict]:
    """One run: p processes, each the paper's insert / find / delete loops; their JSON lines, by process
    id. An error if any process failed, or if any value was lost, duplicated or changed. `impl` "raw-put":
    the paper's baseline, puts into an array at the address the origin names, timed, then read back by
    untimed gets and checked the same way (see Target.raw);
    "hazelcast": the same loops on a Hazelcast cluster (q does not apply). `buffers`: each target's receive
    buffers (at least q + 1; None: q + 4, the kit's default). `latency`: every link between two processes
    through Toxiproxy (see _processes); None: straight over loopback."""
    if pattern not in PATTERNS:
        raise LabError(f"no pattern '{pattern}'", f"use one of {', '.join(PATTERNS)}")
    if impl not in IMPLS:
        raise LabError(f"no implementation '{impl}'", f"use one of {', '.join(IMPLS)}")
    if impl == "hazelcast":
        main, cp, extra = "handofflab.dht.hazelcast.HazelcastMain", javabuild.classpath("dht-hazelcast"), []

    else:
        main, cp = "handofflab.dht.DhtMain", javabuild.classpath("dht")
        extra = ["--q", str(q), *(["--buffers", str(buffers)] if buffers is not None else []),
                 *(["--raw-put"] if impl == "raw-put" else [])]
    return _processes(p, main, cp, ["--pattern", pattern, "--values", str(values), "--n", str(n), "--L", str(blocking),
                                    *extra], timeout, f"the DHT run ({p} processes, {pattern}, {values} values)",
                      jvm=HAZELCAST_JVM if impl == "hazelcast" else (), latency=latency, public_peers=impl == "hazelcast")


# The matrices of the paper's Table 1 (MatrixMarket names): size, non-zeros, and the paper's barrier
# times per non-zero (µs) through CSE_Hash and through blocking MPI send/receive, on its IBM SP.
TABLE1 = (("s3dkq4m2", 90449, 2455670, 61.1341, 58.7964), ("e40r5000", 17281, 553956, 212.198, 208.536),
          ("e40r0000", 17281, 553956, 210.793, 209.767), ("af23560", 23560, 484256, 163.266, 158.122),
          ("bcsstk17", 10974, 219812, 41.7125, 41.614), ("fidapm29", 13668, 186294, 6.84031, 5.32564),
          ("bcsstk25", 15439, 133840, 316.992, 305.686), ("memplus", 17758, 126150, 16.1653, 16.9388),
          ("bcsstk18", 11948, 80519, 370.815, 357.013), ("tols4000", 4000, 8784, 26.9704, 18.3502),
          ("bwm2000", 2000, 7996, 31.4562, 26.4441), ("west2021", 2021, 7353, 66.5721, 53.1782),
          ("jpwh_991", 991, 6027, 39.5261, 27.4571), ("tols2000", 2000, 5184, 27.0639, 7.02411),
          ("cdde6", 961, 4681, 23.7996, 14.031), ("fs_541_4", 541, 4285, 26.5981, 18.6019),
          ("impcol_d", 425, 1339, 52.7199, 14.5668), ("impcol_a", 207, 572, 45.6399, 14.8374),
          ("impcol_c", 137, 411, 79.8248, 9.08759), ("impcol_b", 59, 312, 53.6058, 20.1987))
SCATTER_IMPLS = ("dht", "send-recv")   # the kit's table, and the paper's blocking send/receive baseline


def scatter(matrix: str, p: int = 3, impl: str = "dht", blocking: int = 100, q: int = 4, timeout: float = 300,
            folder: Path | None = None, latency: Latency | None = None) -> dict:
    """The paper's matrix scatter (Figs. 1-2) of Table 1's `matrix`: read from `folder`/`matrix`.mtx when
    that MatrixMarket file is there, or else made by the kit with its size and non-zeros (the same
    matrix in every run). Process 0 reads it, then sends row i to process i % p. Process 0's JSON line
    (its times per non-zero) with the matrix's source, once every process has checked that it holds its
    rows exactly once."""
    shape = {name: (size, nnz) for name, size, nnz, _, _ in TABLE1}
    if matrix not in shape:
        raise LabError(f"no matrix '{matrix}' in the paper's Table 1", f"use one of {', '.join(shape)}")
    if impl not in SCATTER_IMPLS:
        raise LabError(f"no scatter implementation '{impl}'", f"use one of {', '.join(SCATTER_IMPLS)}")
    file = folder / f"{matrix}.mtx" if folder else None
    if file and file.is_file():
        source, what = "MatrixMarket", ["--matrix-file", str(file.resolve())]
    else:
        size, nnz = shape[matrix]
        source, what = "made by the kit", ["--rows", str(size), "--nonzeros", str(nnz), "--seed", str(sum(map(ord, matrix)))]
    rows = _processes(p, "handofflab.dht.ScatterMain", javabuild.classpath("dht"),
                      [*what, "--impl", impl, "--L", str(blocking), "--q", str(q)],
                      timeout, f"the scatter of {matrix} ({p} processes, {impl})", latency=latency)
    return {"matrix": matrix, "source": source, **rows[0]}


def _processes(p: int, main: str, cp: str, args: list[str], timeout: float, what: str,
               jvm: tuple[str, ...] | list[str] = (), latency: Latency | None = None,
               public_peers: bool = False) -> list[dict]:
    """Starts p JVMs of `main` on loopback ports, process i with --id i; their JSON lines, by id. An
    error naming each process that failed; a port another program took meanwhile is chosen again.
    With `latency`, a Toxiproxy proxy stands in front of each process's port for this run, and every other
    process reaches it through that proxy: process i's --peers names the proxies, and its own port for itself
    (a process's requests to itself cross no network, in the paper's machine either). `public_peers` (Hazelcast's
    members): every process is given the proxies alone, and --listen its own port (its public address)."""
    if latency:
        what += f", through Toxiproxy at {latency.ms} ms"
    for attempt in range(3):  # a port taken by another program between choosing and binding: choose again
        chosen = toolchain.free_ports(2 * p if latency else p)   # the processes' ports, then their proxies'
        ports = chosen[:p]
        reached = chosen[p:] if latency else ports               # where the others reach each process
        with contextlib.ExitStack() as links:
            if latency:
                links.enter_context(latency.proxy.links(ports, reached, latency.ms, latency.jitter))
            def peers(i: int) -> list[str]:
                seen = [ports[j] if j == i and not public_peers else reached[j] for j in range(p)]
                return ["--peers", ",".join(f"127.0.0.1:{port}" for port in seen),
                        *(["--listen", str(ports[i])] if public_peers and latency else [])]
            cmds = [["java", "-Xmx512m", *jvm, "-cp", cp, main, "--id", str(i), *peers(i), *args] for i in range(p)]
            outs = _communicate(cmds, what, timeout)
        if any("cannot listen on" in err or "Address already in use" in err for _, _, err in outs) and attempt < 2:
            continue
        failed = [f"process {i} exit {code}: " + (_wrong(out) if code == 1 and out.strip() else (err.strip().splitlines() or [""])[-1])
                  for i, (code, out, err) in enumerate(outs) if code != 0]
        if failed:
            raise LabError(f"{what} failed: " + "; ".join(failed), "the message names the process and what went wrong")
        return [json.loads(out.strip().splitlines()[-1]) for _, out, _ in outs]
    raise AssertionError("unreachable")


def _communicate(cmds: list[list[str]], what: str, timeout: float) -> list[tuple[int, str, str]]:
    """Runs the processes together to their ends: each one's exit code, output and errors."""
    with toolchain.run_beside(cmds, what, "install a JDK 17 (`./lab doctor` checks the tools)") as procs:
        deadline = time.monotonic() + timeout
        outs = []
        try:
            for proc in procs:
                out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
                outs.append((proc.returncode, out, err))
        except subprocess.TimeoutExpired:
            raise LabError(f"{what} ran past {timeout:.0f} s",
                           "run it smaller, or look for a process that hangs (jstack its pid)")
    return outs


def _wrong(out: str) -> str:
    """What a process that exited 1 found wrong (its JSON line says how many values, and the first)."""
    try:
        r = json.loads(out.strip().splitlines()[-1])
        return f"{r['wrong']} value(s) lost, duplicated or changed, first: {r['first_wrong']}"
    except (ValueError, IndexError, KeyError):
        return "it printed no result: " + out[-300:]
