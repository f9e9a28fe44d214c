"""`./lab bench heap`: does a long-running server's heap stay bounded? One server process serves
round after round of the load client; after each round `jcmd GC.class_histogram` (a full GC, then
a count of every live object) reads its live heap and its boxed ids. The server remembers served
ids to flag duplicates, but only the last two generations of 65 536 (ServerStats.RecentIds), so
past about 131 072 requests the live heap must stop growing. The baseline is the same server's
heap after the first round, measured in the same run. A measurement with one check on it, the
documented bound on kept ids; never a timed test."""
from __future__ import annotations

import csv
import re
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from handofflab.benches import bench_shared, servers
from handofflab.ground import paths, toolchain
from handofflab.ground.console import LabError, heading, info, ok

OUT = paths.RESULTS / "bench" / "heap"
KEPT_IDS = 2 * 65536   # ServerStats.RecentIds: two generations of AT_LEAST ids
OTHER_LONGS = 4096     # boxed longs the JVM and the server hold besides the ids (measured: a few hundred)
CHILDREN = 50


@dataclass(frozen=True)
class Histogram:
    """What one class histogram says: live bytes in all, and the boxed Longs (the ids' type)."""
    live_bytes: int
    longs: int


def parse_histogram(text: str) -> Histogram:
    """`jcmd PID GC.class_histogram`'s table: ` num: instances bytes class`, then `Total instances bytes`."""
    total = re.search(r"^Total\s+(\d+)\s+(\d+)\s*$", text, re.M)
    if not total:
        raise LabError("jcmd's class histogram has no 'Total' line", "run `jcmd PID GC.class_histogram` by hand to see why")
    longs = re.search(r"^\s*\d+:\s+(\d+)\s+\d+\s+java\.lang\.Long(?: \(java\.base)?", text, re.M)
    return Histogram(live_bytes=int(total.group(2)), longs=int(longs.group(1)) if longs else 0)


def jcmd() -> str:
    """jcmd beside the JVM the servers run on (a JDK has it; a JRE does not)."""
    java = Path(toolchain.server_java())
    beside = java.parent / "jcmd" if java.parent != Path(".") else None
    found = str(beside) if beside and beside.exists() else shutil.which("jcmd")
    if not found:
        raise LabError("jcmd is not installed beside the servers' JVM", "install a full JDK: sudo apt-get install openjdk-17-jdk-headless")
    return found


def run(design: str = "SharedBuffer", rounds: int = 8, per_round: int = 50_000) -> Path:
    if rounds < 2 or per_round < CHILDREN:
        raise LabError(f"--rounds must be at least 2 and --requests at least {CHILDREN}, got {rounds} and {per_round}",
                       "the first round is the baseline; e.g. --rounds 8 --requests 50000")
    tool = jcmd()
    with bench_shared.alone("bench heap"):
        OUT.mkdir(parents=True, exist_ok=True)
        heading(f"bench heap: {design}, {rounds} rounds x {per_round} requests; a class histogram after each")
        rows = []
        # At the end the server is stopped as Ctrl-C stops it (SIGTERM, then time to drain), and killed only past that.
        with toolchain.run_beside([servers.java_command("handofflab.servers.ServerMain",
                                                        [design, "--port", "0", "--delay-ms", "0", "--workers", "8"])],
                                  "the server under load", "install a JDK 17 (`./lab doctor` checks the tools)",
                                  stop=signal.SIGTERM, grace=120) as (server,):
            first = server.stdout.readline()
            if "127.0.0.1:" not in first:
                raise LabError(f"the server did not start: {first}{server.stderr.read()[-2000:]}", f"try `./lab serve {design}`")
            port = first.split("127.0.0.1:")[1].split()[0]
            served = 0
            with tempfile.TemporaryDirectory() as tmp:
                for r in range(1, rounds + 1):
                    report = Path(tmp) / f"round{r}.json"
                    toolchain.run(servers.java_command("handofflab.servers.ClientMain",
                                                       ["127.0.0.1", port, str(CHILDREN), str(per_round // CHILDREN), "0",
                                                        "--quiet", "--json", str(report)]),
                                  f"the load client's round {r}", "run `./lab client` by hand against the server to see why")
                    served += CHILDREN * (per_round // CHILDREN)
                    h = parse_histogram(toolchain.run([tool, str(server.pid), "GC.class_histogram"], "jcmd's class histogram",
                                                      "jcmd attaches to a JVM of the same user; check /tmp is writable").stdout)
                    rows.append({"round": r, "requests": served, "live_bytes": h.live_bytes, "longs": h.longs})
                    info(f"  round {r}/{rounds}: {served:>9,} requests served, live heap {h.live_bytes / 2**20:7.1f} MiB "
                         f"({h.live_bytes / rows[0]['live_bytes']:.2f} x round 1), {h.longs:,} Longs")
        return _report(design, rows)


def _report(design: str, rows: list[dict]) -> Path:
    with open(OUT / "heap.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    # the id window fills and empties in a saw-tooth, so compare the peaks of the two halves
    early, late = rows[:len(rows) // 2], rows[len(rows) // 2:]
    peak_early, peak_late = (max(r["live_bytes"] for r in half) for half in (early, late))
    last = rows[-1]
    bounded = last["longs"] <= KEPT_IDS + OTHER_LONGS
    lines = [f"# bench heap: {design}", "",
             "| round | requests | live heap (MiB) | x round 1 | Longs |", "|---|---|---|---|---|",
             *[f"| {r['round']} | {r['requests']:,} | {r['live_bytes'] / 2**20:.1f} | "
               f"{r['live_bytes'] / rows[0]['live_bytes']:.2f} | {r['longs']:,} |" for r in rows], "",
             f"Largest live heap in the first half of the run {peak_early / 2**20:.1f} MiB, in the second "
             f"{peak_late / 2**20:.1f} MiB ({peak_late / peak_early:.2f} x), for {late[-1]['requests'] / early[-1]['requests']:.1f} x "
             "the requests (kept for ever, it would grow with them).",
             f"Boxed Longs at the end: {last['longs']:,}; the documented bound is {KEPT_IDS:,} kept ids "
             f"+ {OTHER_LONGS:,} others: {'within it' if bounded else 'ABOVE IT: served ids are kept without bound'}."]
    (OUT / "summary.md").write_text(("" if bounded else "**PARTIAL: the bound on kept ids does not hold**\n\n") + "\n".join(lines) + "\n")
    plt = bench_shared.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([r["requests"] for r in rows], [r["live_bytes"] / 2**20 for r in rows], "o-", label=f"{design}: live heap after a full GC")
    ax.plot([r["requests"] for r in rows], [r["longs"] * 56 / 2**20 for r in rows], "s--",
            label="kept ids (Longs x ~56 B with their set entry)")
    ax.axhline(KEPT_IDS * 56 / 2**20, color="grey", ls=":", label=f"the bound: {KEPT_IDS:,} kept ids")
    ax.set_xlabel("requests served")
    ax.set_ylabel("MiB")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.set_title("A long run's live heap, after a full GC at the end of each round")
    bench_shared.save(fig, OUT / "heap.png")
    info("\n".join(lines[2:]))
    ok(f"results in {paths.shown(OUT)}: heap.csv, summary.md, heap.png")
    return OUT
