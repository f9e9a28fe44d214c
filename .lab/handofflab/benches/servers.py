"""`./lab serve` and `./lab client`: the Java servers (java/servers) and the paper's
load client, run in the foreground on a JDK 21+ where there is one."""
from __future__ import annotations

from handofflab.ground import catalog, paths, toolchain
from handofflab.java import javabuild, tracecheck
from handofflab.ground.console import LabError, bad, ok, step


def java_command(main: str, args: list[str]) -> list[str]:
    """A JVM for the servers, told the catalog's designs (Java keeps no list of them)."""
    return [toolchain.server_java(), "-cp", javabuild.classpath("servers"),
            f"-Dhandofflab.designs={catalog.load().design_table()}", main, *args]


def serve(design: str, options: list[str], trace: bool = False, handoff: str | None = None,
          workers: int = 50, slots: int = 101) -> int:
    """Runs DESIGN until Ctrl-C. With `trace`, its handoff's every put and take is recorded until the
    last connection is taken, and TLC then judges the run against the design's trace spec."""
    cat = catalog.load()
    server = cat.server(design)  # a clear error, with the names, before starting a JVM
    if not trace:
        return toolchain.run_foreground(java_command("handofflab.servers.ServerMain", [design, *options]))
    java = handoff or (server.handoff.java if server.handoff else None)  # the class its connections pass through
    variant = next((v for v in cat.variants.values() if java and v.java == java), None)
    if not variant or not variant.handoff.trace:
        traced = [s.name for s in cat.servers.values() if s.handoff and s.handoff.trace]
        raise LabError(f"--trace validates a handoff against its design's trace spec, and {design}"
                       + (f" with {handoff}" if handoff else "") + " has none",
                       f"trace one of: {', '.join(traced)}")
    events = tracecheck.OUT / f"serve-{design}.csv"
    events.parent.mkdir(parents=True, exist_ok=True)
    events.unlink(missing_ok=True)
    code = toolchain.run_foreground(java_command("handofflab.servers.ServerMain",
                                                 [design, *options, "--trace", str(events)]))
    if not events.exists():
        bad(f"no trace was written to {paths.shown(events)}: the server stopped before its shutdown")
        return code or 1
    capacity = workers if variant.profile.sized_by == "workers" else slots
    with step(f"TLC on the recorded run against {variant.handoff.trace}"):
        outcome = tracecheck.check_log(events, variant, capacity, f"this run of {design} ({variant.java})")
    (ok if outcome.verdict == "pass" else bad)(f"trace: {outcome.verdict}: {outcome.detail}")
    if outcome.swimlane:
        outcome.swimlane.show()
    return code or (0 if outcome.verdict == "pass" else 1)


def client(host: str, port: str, nchildren: str, nrequests: str, millis: str | None = None,
           timeout_ms: str | None = None, silent: str | None = None, idle_ms: str | None = None,
           json_file: str | None = None, quiet: bool = False) -> int:
    """The paper's load client (LoadClient), its exit code. Every number is checked here, before any work: Java
    would truncate 4294975376 to a port."""
    _whole("PORT", port, 1, 65535)
    _whole("NCHILDREN", nchildren, 1, 100_000)
    _whole("NREQUESTS", nrequests, 1, 10_000_000)
    if millis is not None:
        _whole("MILLIS", millis, 0, 60_000)
    if timeout_ms is not None:
        _whole("--timeout-ms", timeout_ms, 1, 3_600_000)
    args = [host, port, nchildren, nrequests] + ([millis] if millis is not None else [])
    if timeout_ms:
        args += ["--timeout-ms", timeout_ms]
    if silent is not None:
        _whole("--silent", silent, 0, 10_000)
        args += ["--silent", silent]
    if idle_ms is not None:
        _whole("--idle-ms", idle_ms, 0, 600_000)
        args += ["--idle-ms", idle_ms]
    if json_file:
        args += ["--json", json_file]
    if quiet:
        args.append("--quiet")
    return toolchain.run_foreground(java_command("handofflab.servers.ClientMain", args))


def _whole(name: str, text: str, low: int, high: int) -> int:
    """A whole number in [low, high], or a LabError naming the argument and its range."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise LabError(f"{name} must be a whole number from {low} to {high}, got '{text}'",
                       f"pass {name} within that range")
    return value


def design_help() -> str:
    """The designs, for `./lab serve --help` (read from the catalog, like everything else)."""
    try:
        servers = catalog.load().servers.values()
    except Exception as e:  # a broken catalog must not break --help; it says so instead
        return f"(the catalog could not be read: {e})"
    lines = ["Designs (Roussev & Wu's Table 1, then two beyond the paper):", "", "\b"]  # \b: click keeps the lines
    for s in servers:
        lines.append(f"  {s.name:<18} {s.summary}")
    return "\n".join(lines)


