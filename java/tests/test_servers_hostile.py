"""Servers that hold under hostile clients and tell the truth when they stop (issue 21): a real
server process on loopback, real sockets, and its exit code and counts read at the end. No
assertion here depends on how fast the machine is: waits are for events, with limits many times
what they need."""
import re
import signal
import socket
import subprocess
import time

import pytest

from handofflab.benches import servers


class Server:
    """`./lab serve`'s JVM in a process of its own (optionally with a file-descriptor limit)."""

    def __init__(self, design: str, *options: str, fd_limit: int | None = None):
        cmd = servers.java_command("handofflab.servers.ServerMain", [design, "--port", "0", *options])
        if fd_limit:  # the limit applies to the server alone: `ulimit` in a shell that then becomes the JVM
            cmd = ["bash", "-c", f'ulimit -n {fd_limit} && exec "$@"', "serve", *cmd]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline()  # "serving D on 127.0.0.1:PORT (...)": it listens
        assert "serving " in first, first + self.proc.stderr.read()
        self.port = int(first.split("127.0.0.1:")[1].split()[0])

    def stop(self, timeout: float = 180) -> tuple[int, str, str]:
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err


def request(port: int, rid: int, millis: int = 0, timeout: float = 60) -> bytes:
    """One honest request: send, read the whole reply, then close."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"{rid} {millis}\n".encode())
        reply = b""
        while len(reply) < 4000:
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply


@pytest.mark.parametrize("design", ["ThreadPool", "ThreadPerClient"])
def test_a_cold_server_out_of_file_descriptors_serves_again(design):
    """Before: loading a class of the serving path failed for good once the descriptors ran out
    before the first request (NoClassDefFoundError, 17 006 log lines, "stopped cleanly ... served 0")."""
    server = Server(design, "--request-timeout-ms", "500", "--delay-ms", "0", fd_limit=160)
    idle = []
    try:
        for _ in range(300):  # more than the server has descriptors for
            idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=30))
        time.sleep(1)  # let it run out (the point of the test, not a wait for a result)
    finally:
        for s in idle:
            s.close()
    assert request(server.port, 7).startswith(b"OK 7\n")  # it serves again once the pressure ends
    code, out, err = server.stop()
    assert code == 0 and "stopped cleanly" in out, out + err
    assert "served 1," in out and "NoClassDefFoundError" not in err and len(err.splitlines()) < 20, err


def test_a_client_that_keeps_talking_after_its_reply_is_cut_off():
    """Before: a client that kept sending after its reply held its worker with no deadline."""
    server = Server("SharedBuffer", "--workers", "2", "--request-timeout-ms", "500", "--delay-ms", "0")
    cut = 0
    for i in range(2):
        s = socket.create_connection(("127.0.0.1", server.port), timeout=60)
        s.sendall(f"{100 + i} 0\n".encode())
        got = b""
        while len(got) < 4000 and (chunk := s.recv(65536)):
            got += chunk
        assert got.startswith(f"OK {100 + i}".encode()), got[:80]
        try:  # keep talking, a byte every 50 ms, for at most 60 s: the server must close first
            for _ in range(1200):
                s.sendall(b"x")
                time.sleep(0.05)
        except OSError:
            cut += 1
        s.close()
    assert cut == 2
    assert request(server.port, 7).startswith(b"OK 7\n")
    code, out, err = server.stop()
    assert code == 0 and "served 3," in out, out + err


@pytest.mark.full("servers that serve long requests while they shut down", seconds=16)
def test_shutdown_waits_for_long_requests_and_blames_no_correct_handoff():
    """Before: with two workers busy on 10 s requests, Ctrl-C ended after a fixed 30 s with exit 1,
    blaming MonitorBuffer for 'losing' the connections queued behind them."""
    def start_requests(server, n, millis):
        socks = []
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=120)
            s.sendall(f"{i} {millis}\n".encode())
            socks.append(s)
        time.sleep(0.5)  # all accepted and handed off before the signal (the test's set-up)
        return socks

    def finish(socks):
        for s in socks:
            try:
                while s.recv(65536):
                    pass
            except OSError:
                pass
            s.close()

    server = Server("SharedBuffer", "--workers", "2", "--delay-ms", "0")
    socks = start_requests(server, 4, 2000)  # two served, two queued behind them
    server.proc.send_signal(signal.SIGTERM)
    finish(socks)
    out, err = server.proc.communicate(timeout=180)
    assert server.proc.returncode == 0 and "stopped cleanly: accepted 4, served 4" in out, out + err

    server = Server("SharedBuffer", "--workers", "2", "--delay-ms", "0", "--grace-ms", "200")
    socks = start_requests(server, 4, 5000)
    code, out, err = server.stop()
    finish(socks)
    # Truthful accounts, by where the 5 s requests stand at the stop: queued in the buffer behind the busy workers,
    # or (a busy machine, CI beside two busy loops) the acceptor still putting into the full buffer; and on a busy
    # machine the second worker may not have taken its request yet (one serving, seen beside the suite's heavy
    # tests). Either way the grace is named, and the handoff is blamed for nothing.
    assert code == 1 and "stopped WITHOUT draining" in out and "problems: none" in out, out + err
    assert re.search(r"still queued in MonitorBuffer and [12] being served"
                     r"|still waiting to put into a full MonitorBuffer while [12] worker\(s\) were serving", out), out + err
    assert "a longer --grace-ms lets them finish" in out and "lost them" not in out


def test_a_client_that_closes_before_its_reply_is_not_served():
    """Before: a client that sent its request and closed at once counted as served. A client that
    half-closes (shuts down its sending side, then reads) still gets its whole reply, and is served."""
    server = Server("SharedBuffer", "--workers", "2", "--delay-ms", "0")
    for i, millis in enumerate((0, 50, 200)):  # the reply comes after the close, however soon
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
            s.sendall(f"{i} {millis}\n".encode())
    for i in range(3, 6):
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
            s.sendall(f"{i} 20\n".encode())
            s.shutdown(socket.SHUT_WR)
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        assert reply.startswith(f"OK {i}\n".encode()) and len(reply) == 4000, reply[:80]  # not a byte more
    code, out, err = server.stop()
    assert code == 0 and "accepted 6, served 3, problems: reset 3" in out, out + err


def test_bad_numbers_and_addresses_are_named_before_any_work(tmp_path):
    cp = servers.java_command("handofflab.servers.ClientMain", [])
    for args, says in ((["127.0.0.1", "4294975376", "1", "1"], "PORT must be a whole number from 1 to 65535"),
                       (["127.0.0.1", "8080", "4294967297", "1"], "NCHILDREN must be a whole number from 1"),
                       (["127.0.0.1", "8080", "1", "1", "--timeout-ms", "2147483648"], "--timeout-ms must be"),
                       (["127.0.0.1", "8080", "1", "1", "--idle-ms", "soon"], "--idle-ms must be a whole number"),
                       (["127.0.0.1", "1", "1", "1", "--json", str(tmp_path / "no" / "such.json")], "cannot write --json")):
        run = subprocess.run([*cp, *args], capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and says in run.stderr and "Exception" not in run.stderr, (args, run.stderr)
        assert "nothing answered" not in run.stdout  # refused before any load was sent
    serve = subprocess.run(servers.java_command("handofflab.servers.ServerMain",
                                                ["Iterative", "--port", "0", "--bind", "192.0.2.1"]),
                           capture_output=True, text=True, timeout=60)
    assert serve.returncode == 2 and "cannot listen on 192.0.2.1" in serve.stderr and "in use" not in serve.stderr


def test_the_request_deadline_holds_by_the_clock():
    """Before: each read could wait the whole timeout again, so a client that sent a byte just
    before the deadline, then stalled, held its worker for about twice the timeout. The margins
    here are seconds wide: only a deadline kept by the next read, not the clock, misses them."""
    server = Server("SharedBuffer", "--workers", "1", "--request-timeout-ms", "3000", "--delay-ms", "0")
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as s:
        start = time.monotonic()
        time.sleep(2.7)
        s.sendall(b"1")  # just before the deadline; then nothing more
        said = s.recv(4096)  # the server's refusal, then its close
        cut_after = time.monotonic() - start
    assert said.startswith(b"ERR no complete request within 3000 ms"), said
    assert cut_after < 4.5, f"cut off after {cut_after:.1f} s: the old per-read timeout took about 5.7 s"
    code, out, err = server.stop()
    assert code == 0 and "timeout 1" in out, out + err
