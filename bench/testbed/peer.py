#!/usr/bin/python3
"""One host of the real-TCP testbed: the round program, run inside a network namespace.

Roles (standard library only; every socket operation is bounded by --timeout):
  server  sync PS shard: accept --workers connections, send --bytes to each (version 0),
          then each round: receive --bytes from every worker (the barrier), note the time,
          send --bytes back to every worker (not after the last round).
  worker  connect to every --server; each round: receive its slice from every server
          (the pull), then send --bytes to every server (the push). Its slices and pushes
          move concurrently, as one host's flows do.
  ring    ring all-reduce member of --size: 2 (size - 1) steps of bytes / size per
          iteration, each an MPI_Sendrecv (send to the right neighbour, receive from the
          left, both at once); note the time when an iteration's last step is in.
  sink, source   line rate: the source sends for --seconds, the sink reports the rate.
  echo, ping     round-trip time of a 1-byte message (TCP_NODELAY), --count times.

Every socket uses TCP cubic (--cc), whatever the machine's default: the first look at the
testbed used it, and a namespace's sysctl may not be writable.

Each role prints one JSON object on stdout: its round end times in CLOCK_MONOTONIC
nanoseconds (the same clock in every namespace of the machine), or its measurement.
Payload bytes are zeros and are not reduced: the compute is negligible on purpose, as in
the simulated scenarios (bench/testbed/cases.py).
"""
import argparse
import json
import selectors
import socket
import statistics
import sys
import time

CONGESTION = b"cubic"  # set by --cc
CHUNK = 1 << 20
ZEROS = memoryview(bytearray(CHUNK))    # sent again and again
SCRATCH = memoryview(bytearray(CHUNK))  # received into and dropped


def now_ns():
    return time.monotonic_ns()


def transfer(deadline, sends=(), recvs=()):
    """Sends n bytes on each (socket, n) of `sends` and receives n on each of `recvs`, all at
    once on non-blocking sockets, until every one is done. A socket may appear in both.
    Raises TimeoutError past `deadline` (monotonic seconds), ConnectionError on a close."""
    left = {}  # socket -> [bytes to send, bytes to receive]
    for s, n in sends:
        left.setdefault(s, [0, 0])[0] += n
    for s, n in recvs:
        left.setdefault(s, [0, 0])[1] += n
    sel = selectors.DefaultSelector()

    def interest(s):
        return (selectors.EVENT_WRITE if left[s][0] else 0) | (selectors.EVENT_READ if left[s][1] else 0)

    for s in left:
        if interest(s):
            sel.register(s, interest(s))
    try:
        while sel.get_map():
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError("transfer not done before the deadline")
            for key, events in sel.select(wait):
                s = key.fileobj
                todo = left[s]
                if events & selectors.EVENT_WRITE and todo[0]:
                    todo[0] -= s.send(ZEROS[:min(todo[0], CHUNK)])
                if events & selectors.EVENT_READ and todo[1]:
                    got = s.recv_into(SCRATCH, min(todo[1], CHUNK))
                    if got == 0:
                        raise ConnectionError("the peer closed the connection mid-transfer")
                    todo[1] -= got
                if interest(s):
                    sel.modify(s, interest(s))
                else:
                    sel.unregister(s)
    finally:
        sel.close()


def listen(port):
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CONGESTION)  # accepted sockets inherit it
    lsock.bind(("0.0.0.0", port))
    lsock.listen(64)
    return lsock


def accept(lsock, count, deadline):
    conns = []
    while len(conns) < count:
        lsock.settimeout(max(0.001, deadline - time.monotonic()))
        conn, _ = lsock.accept()  # socket.timeout (a TimeoutError) past the deadline
        conns.append(ready(conn))
    return conns


def connect(address, deadline):
    """Connects to host:port, retrying while the peer is not listening yet."""
    host, port = address.rsplit(":", 1)
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, CONGESTION)
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            sock.connect((host, int(port)))
            return ready(sock)
        except OSError:  # refused (not listening yet), or timed out
            sock.close()
            if time.monotonic() > deadline:
                raise TimeoutError("cannot connect to " + address)
            time.sleep(0.02)


def ready(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setblocking(False)
    return sock


def run_server(a, deadline):
    conns = accept(listen(a.listen), a.workers, deadline)
    transfer(deadline, sends=[(c, a.bytes) for c in conns])  # version 0
    ends = []
    for r in range(a.rounds):
        transfer(deadline, recvs=[(c, a.bytes) for c in conns])
        ends.append(now_ns())
        if r + 1 < a.rounds:
            transfer(deadline, sends=[(c, a.bytes) for c in conns])
    return {"ends_ns": ends}


def run_worker(a, deadline):
    conns = [connect(s, deadline) for s in a.server]
    held = []
    for _ in range(a.rounds):
        transfer(deadline, recvs=[(c, a.bytes) for c in conns])
        held.append(now_ns())
        transfer(deadline, sends=[(c, a.bytes) for c in conns])
    return {"held_ns": held}


def run_ring(a, deadline):
    if a.bytes % a.size:
        raise ValueError("ring: bytes must be a multiple of size")
    lsock = listen(a.listen)
    right = connect(a.right, deadline)
    left = accept(lsock, 1, deadline)[0]
    chunk = a.bytes // a.size
    ends = []
    for _ in range(a.rounds):
        for _ in range(2 * (a.size - 1)):  # reduce-scatter, then all-gather
            transfer(deadline, sends=[(right, chunk)], recvs=[(left, chunk)])
        ends.append(now_ns())
    return {"ends_ns": ends}


def run_sink(a, deadline):
    conn = accept(listen(a.listen), 1, deadline)[0]
    marks = []  # (time, bytes received so far)
    total = 0
    conn.setblocking(True)
    while True:
        conn.settimeout(max(0.001, deadline - time.monotonic()))
        got = conn.recv_into(SCRATCH, CHUNK)
        if got == 0:
            break
        total += got
        marks.append((time.monotonic(), total))
    # Skip the first quarter of a second (slow start) when the transfer is long enough.
    start = next((m for m in marks if m[0] >= marks[0][0] + 0.25), marks[0])
    end = marks[-1]
    return {"bytes": total, "rate_Bps": (end[1] - start[1]) / (end[0] - start[0])}


def run_source(a, deadline):
    sock = connect(a.to, deadline)
    sock.setblocking(True)
    stop = time.monotonic() + a.seconds
    while time.monotonic() < stop:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        sock.send(ZEROS)
    sock.shutdown(socket.SHUT_WR)
    return {}


def run_echo(a, deadline):
    conn = accept(listen(a.listen), 1, deadline)[0]
    conn.setblocking(True)
    conn.settimeout(max(0.001, deadline - time.monotonic()))
    while conn.recv_into(SCRATCH, 1):
        conn.sendall(b"x")
    return {}


def run_ping(a, deadline):
    sock = connect(a.to, deadline)
    sock.setblocking(True)
    sock.settimeout(max(0.001, deadline - time.monotonic()))
    rtts = []
    for _ in range(a.count):
        t = now_ns()
        sock.sendall(b"x")
        if not sock.recv_into(SCRATCH, 1):
            raise ConnectionError("echo closed the connection")
        rtts.append(now_ns() - t)
    return {"rtt_median_ns": statistics.median(rtts)}


ROLES = {"server": run_server, "worker": run_worker, "ring": run_ring, "sink": run_sink,
         "source": run_source, "echo": run_echo, "ping": run_ping}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("role", choices=sorted(ROLES))
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before giving up (whole run)")
    p.add_argument("--listen", type=int, help="port to listen on")
    p.add_argument("--workers", type=int, help="server: connections to accept")
    p.add_argument("--server", action="append", default=[], help="worker: a server's host:port (repeat)")
    p.add_argument("--bytes", type=int, help="bytes per message (ring: per iteration)")
    p.add_argument("--rounds", type=int, help="rounds (iterations) to run")
    p.add_argument("--size", type=int, help="ring: members")
    p.add_argument("--right", help="ring: the right neighbour's host:port")
    p.add_argument("--to", help="source, ping: host:port")
    p.add_argument("--seconds", type=float, default=2.0, help="source: how long to send")
    p.add_argument("--count", type=int, default=200, help="ping: round trips")
    p.add_argument("--cc", default="cubic", help="TCP congestion control of every socket")
    a = p.parse_args(argv)
    global CONGESTION
    CONGESTION = a.cc.encode()
    deadline = time.monotonic() + a.timeout
    try:
        result = ROLES[a.role](a, deadline)
    except (OSError, ValueError) as e:  # TimeoutError and ConnectionError are OSErrors
        print("peer {}: {}".format(a.role, e), file=sys.stderr)
        return 1
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
