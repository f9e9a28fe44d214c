"""`./lab serve` and `./lab client` end to end: the designs come from the catalog and match the
Java servers, a served run is exactly once, and bad input is a clear error with exit code != 0."""
import os
import re
import signal
import socket
import subprocess

from handofflab import catalog, paths, servers


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


def test_the_client_names_a_missing_server_and_bad_numbers():
    run = _lab("client", "127.0.0.1", "1", "1", "1")
    assert run.returncode == 1 and "is a server running?" in run.stdout
    run = _lab("client", "127.0.0.1", "8080", "-4", "1")
    assert run.returncode == 2 and "NCHILDREN must be a whole number" in run.stdout + run.stderr
