"""`./lab serve` and `./lab client` end to end: the designs come from the catalog and match the
Java servers, a served run is exactly once, and bad input is a clear error with exit code != 0."""
import os
import re
import signal
import socket
import subprocess

import pytest

from handofflab.ground import catalog, paths
from handofflab.benches import servers


def _lab(*args, timeout=300):
    return subprocess.run([str(paths.ROOT / "lab"), *args], capture_output=True, text=True, timeout=timeout)


def test_java_knows_exactly_the_catalogs_designs():
    """Java keeps no list of designs: it names, for an unknown one, the catalog's, as ./lab passes them."""
    run = subprocess.run(servers.java_command("handofflab.servers.ServerMain", ["Nope"]), capture_output=True,
                         text=True, timeout=60)
    listed = re.search(r"designs: (.*)", run.stderr).group(1)
    assert run.returncode == 2 and listed.split(", ") == list(catalog.load().servers), run.stderr


def test_serve_help_lists_every_design():
    run = _lab("serve", "--help")
    assert run.returncode == 0
    for name in catalog.load().servers:
        assert name in run.stdout


def test_bad_serve_arguments_are_named():
    for args, message in ((["Nope"], "unknown design 'Nope'"),
                          (["ParallelHashTable", "--slots", "100"], "prime"),
                          (["Pipes", "--workers", "0"], "--workers must be at least 1")):
        run = _lab("serve", *args, "--port", "0")
        assert run.returncode == 2, (args, run.stdout, run.stderr)
        assert message in run.stdout + run.stderr and "Traceback" not in run.stderr


def test_a_client_against_a_served_design_is_exactly_once():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(servers.java_command("handofflab.servers.ServerMain",
                                                   ["ParallelHashTable", "--port", str(port), "--delay-ms", "2"]),
                              stdout=subprocess.PIPE, text=True)
    try:
        assert "serving ParallelHashTable on 127.0.0.1:" in server.stdout.readline()  # waits until it listens
        run = _lab("client", "127.0.0.1", str(port), "20", "10", "1", "--quiet")
        assert run.returncode == 0, run.stdout + run.stderr
        assert "answered once   200 of 200" in run.stdout and "lost            0" in run.stdout
    finally:
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=60)
    assert server.returncode == 0 and "stopped cleanly: accepted 200, served 200, problems: none" in out


def test_sigterm_with_clients_in_the_kernels_queue_names_them(tmp_path):
    """Issue 50: SIGTERM while connections waited in the kernel's accept queue. A LockedAccept server
    once served 51 clients, reset 90 that had connected and sent a request, and said "stopped cleanly".
    Now what its one busy worker does not take within half the grace is refused by the server, counted,
    and named; each client's own outcome agrees with the ledger; the exit code says it did not drain."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(servers.java_command("handofflab.servers.ServerMain",
                                                   ["LockedAccept", "--port", str(port), "--workers", "1",
                                                    "--delay-ms", "400", "--grace-ms", "2000"]),
                              stdout=subprocess.PIPE, text=True)
    clients = []
    try:
        assert "serving LockedAccept on 127.0.0.1:" in server.stdout.readline()
        for i in range(10):
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(f"{i}\n".encode())
            clients.append(c)
    finally:
        server.send_signal(signal.SIGTERM)
    served = refused = 0
    for c in clients:
        c.settimeout(60)
        got = b""
        try:
            while len(got) < 4000:
                chunk = c.recv(4000 - len(got))
                if not chunk:
                    break
                got += chunk
        except ConnectionResetError:
            pass
        c.close()
        served, refused = (served + 1, refused) if len(got) == 4000 else (served, refused + 1)
    out, _ = server.communicate(timeout=60)
    assert server.returncode == 1 and "stopped WITHOUT draining" in out, out
    assert f"{refused} connection(s) waiting in the kernel's queue were refused" in out, (served, refused, out)
    assert f"accepted 10, served {served}, problems: refused at shutdown {refused}" in out, (served, refused, out)
    assert refused >= 5, out  # one thread at 400 ms a request takes at most 4 in the 1 s it is given


def test_the_client_names_a_missing_server_and_bad_numbers():
    run = _lab("client", "127.0.0.1", "1", "1", "1")
    assert run.returncode == 1 and "is a server running?" in run.stdout
    run = _lab("client", "127.0.0.1", "8080", "-4", "1")
    assert run.returncode == 2 and "NCHILDREN must be a whole number" in run.stdout + run.stderr


def _traced_run(design: str, *options: str) -> subprocess.CompletedProcess:
    """`./lab serve DESIGN --trace`, six clients of five requests each, then SIGTERM, as Ctrl-C would."""
    server = subprocess.Popen([str(paths.ROOT / "lab"), "serve", design, "--port", "0", "--trace", *options],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = ""
        while "serving " not in line:  # after the build's progress lines: it listens
            line = server.stdout.readline()
            assert line, "the server ended before it listened"
        port = re.search(r"127\.0\.0\.1:(\d+)", line).group(1)
        run = _lab("client", "127.0.0.1", port, "6", "5", "5", "--quiet")
        assert run.returncode == 0 and "answered once   30 of 30" in run.stdout, run.stdout + run.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        out, _ = server.communicate(timeout=120)
    return subprocess.CompletedProcess(server.args, server.returncode, out, "")


def test_a_traced_server_run_is_checked_against_its_design():
    """The servers switch trace validation on: the handoff's calls are recorded until the last connection
    is taken (the workers' STOPs are no connections), and TLC judges the run. One worker and 30 requests
    of 5 ms from six clients keep connections waiting, so a stack in place of the ring shows every run."""
    good = _traced_run("SharedBuffer", "--workers", "1", "--slots", "5", "--delay-ms", "5")
    # 30 puts and 30 takes, each begun and returned (and the worker's next take begun, if it is back), each
    # with its insert or remove and its notifyAll inside the monitor (and waits): no STOP
    events = re.search(r"trace: (\d+) events of MonitorBuffer", good.stdout)
    assert good.returncode == 0 and events and int(events.group(1)) >= 120 + 60 * 2, good.stdout
    assert "trace: pass" in good.stdout, good.stdout
    lifo = _traced_run("SharedBuffer", "--workers", "1", "--slots", "5", "--delay-ms", "5", "--handoff", "LifoBuffer")
    assert lifo.returncode == 1 and "stopped cleanly: accepted 30, served 30" in lifo.stdout, lifo.stdout
    assert "trace: violation:FollowsSpec" in lifo.stdout and "the design cannot do this" in lifo.stdout, lifo.stdout


def test_trace_is_refused_for_a_design_without_a_handoff_spec():
    run = _lab("serve", "ThreadPerClient", "--port", "0", "--trace")
    assert run.returncode == 2 and "--trace validates a handoff" in run.stdout + run.stderr, run.stdout + run.stderr
    assert "SharedBuffer" in run.stdout + run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("design,steps", [("ParallelHashTable", 3), ("Pipes", 2)])
def test_a_traced_server_run_of_the_kits_class_is_judged_by_its_steps(design, steps):
    """The kit's hash table and pipes log their steps in a server run too (the table: a read and a fill
    per put, a swap per probe of a take; the pipes: a claim per put, a read and a free per take), and TLC
    reads each against the design's steps."""
    run = _traced_run(design, "--workers", "2", "--slots", "7", "--delay-ms", "5")
    events = int(re.search(r"trace: (\d+) events of \w+ written", run.stdout).group(1))
    assert run.returncode == 0 and "trace: pass" in run.stdout, run.stdout
    assert events >= 30 * 4 + 30 * steps, f"30 puts and takes with their steps, not their calls alone: {events}"
