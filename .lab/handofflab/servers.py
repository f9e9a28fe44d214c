"""`./lab serve` and `./lab client`: the Java servers (java/servers) and the paper's
load client, run in the foreground on a JDK 21+ where there is one."""
from __future__ import annotations

from handofflab import catalog, javabuild, toolchain


def java_command(main: str, args: list[str]) -> list[str]:
    """A JVM for the servers, told the catalog's designs (Java keeps no list of them)."""
    return [toolchain.server_java(), "-cp", javabuild.classpath("servers"),
            f"-Dhandofflab.designs={catalog.load().design_table()}", main, *args]


def serve(design: str, options: list[str]) -> int:
    catalog.load().server(design)  # a clear error, with the names, before starting a JVM
    return toolchain.run_foreground(java_command("handofflab.servers.ServerMain", [design, *options]))


def client(args: list[str]) -> int:
    return toolchain.run_foreground(java_command("handofflab.servers.LoadClient", args))


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


