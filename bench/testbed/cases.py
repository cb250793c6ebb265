"""The testbed's cases, and the pssim scenario of a case: one description for both sides.

A case is a round pattern (sync PS with k servers, or a ring all-reduce), its sizes and its
line rates. The real side (testbed.py) runs bench/testbed/peer.py in namespaces shaped at
those rates; the simulated side runs `pssim run` on scenario(case, ...): a synthetic model
of the case's bytes, negligible compute (1 FLOP at 1e18 FLOP/s), a star network with the
same NICs, and 1 + rounds updates. Both report the period of the last `rounds` rounds: the
first round (fresh connections) is a warm-up.
"""
import dataclasses
import math

MB = 1_000_000
Gbps = 1e9
Mbps = 1e6
WARMUP = 1  # rounds before the measured ones

# The wire as network.framing describes it: TCP over Ethernet, MTU 1500 (1448 / 1538).
ETHERNET = {"kind": "ethernet", "mtu": 1500}


@dataclasses.dataclass(frozen=True)
class Case:
    regime: str            # what the case stands for, for the per-regime summary
    scheme: str            # "ps" (sync PS, `servers` shards) or "ring" (all-reduce)
    workers: int
    bytes: int             # model size M: a worker pushes M (to k servers: M / k each)
    worker_bps: float      # line rate of a worker's NIC, each way
    server_bps: float = 0  # of a server's NIC; 0: as the workers'
    servers: int = 1       # ps only
    delay_s: float = 0.0   # added one-way latency of every NIC (netem only)

    @property
    def name(self):
        parts = [self.scheme, "n{}".format(self.workers)]
        if self.scheme == "ps" and self.servers > 1:
            parts.append("k{}".format(self.servers))
        parts.append(size_text(self.bytes))
        parts.append(rate_text(self.worker_bps))
        if self.scheme == "ps" and self.server_bps and self.server_bps != self.worker_bps:
            parts.append("s" + rate_text(self.server_bps))
        if self.delay_s:
            parts.append("d{:g}ms".format(self.delay_s * 1e3))
        return "-".join(parts)

    @property
    def server_rate(self):
        return self.server_bps or self.worker_bps

    def check(self):
        """Raises ValueError for a case the round program or pssim cannot run as described."""
        if self.scheme not in ("ps", "ring"):
            raise ValueError("{}: scheme ps or ring".format(self.name))
        if self.workers < 1 or (self.scheme == "ring" and self.workers < 2):
            raise ValueError("{}: too few workers".format(self.name))
        parts = self.servers if self.scheme == "ps" else self.workers
        if self.bytes <= 0 or self.bytes % (4 * parts):
            raise ValueError("{}: bytes must be a positive multiple of 4 x {}".format(self.name, parts))

    def busy_flows(self):
        """How many flows at the workers' line rate the case may have running at once: the
        machine must carry as many (testbed.py checks as many side by side). A ring member sends
        one flow and receives one; a PS moves min(workers, what the servers' NICs carry in
        workers' rates) flows each way, and with several workers pushes and pulls overlap."""
        if self.scheme == "ring":
            return self.workers
        each_way = max(1, min(self.workers, round(self.servers * self.server_rate / self.worker_bps)))
        return each_way if self.workers == 1 else 2 * each_way

    def estimate_s(self):
        """A round's length by the max-min closed forms at the payload rate: sizes the runs."""
        w, s = payload_rate(self.worker_bps), payload_rate(self.server_rate)
        if self.scheme == "ring":
            return 2 * (self.workers - 1) / self.workers * self.bytes / w
        return 2 * max(self.bytes / w, self.workers * self.bytes / (self.servers * s))

    def rounds(self, seconds=0.6):
        """Measured rounds: about `seconds` of them, 3 at least, 100 at most."""
        return max(3, min(100, math.ceil(seconds / self.estimate_s())))


def payload_rate(bps):
    """Payload bytes/s of TCP over an Ethernet line of bps bits/s, MTU 1500: 1448 / 1538."""
    return bps / 8 * 1448 / 1538


def size_text(b):
    return "{:g}MB".format(b / MB) if b >= MB else "{:g}kB".format(b / 1e3)


def rate_text(bps):
    return "{:g}G".format(bps / Gbps) if bps >= Gbps else "{:g}M".format(bps / Mbps)


def ps(regime, workers, mbytes, rate, server_rate=0, servers=1, delay_s=0.0):
    return Case(regime, "ps", workers, int(mbytes * MB), rate, server_rate, servers, delay_s)


def ring(regime, workers, mbytes, rate, delay_s=0.0):
    return Case(regime, "ring", workers, int(mbytes * MB), rate, delay_s=delay_s)


ONE_FLOW = "one flow per NIC"
FAN_LARGE = "fan-in, large messages"
FAN_SMALL = "fan-in, small messages"
FAT = "fat server"
SHARDED = "sharded"
RING = "ring all-reduce"
SHORT = "short rounds"
LATENCY = "latency (netem)"

# The default set: about 140 s of rounds at 5 repetitions (python3 cases.py lists it).
# Mostly 100 Mbit/s: the testbed sends one frame per packet (netns.py), and 2 cores carried
# 8 flows at 100 Mbit/s or one at 1 Gbit/s, not two (83 %). The 1 Gbit/s cases have one
# server; those with several workers overlap pushes and pulls (2 flows), so they are
# measured and shown but, where the check fails, left out (testbed.py).
DEFAULT = [
    ps(ONE_FLOW, 1, 1, 100 * Mbps), ps(ONE_FLOW, 1, 8, Gbps), ring(ONE_FLOW, 2, 1, 100 * Mbps),
    ps(FAN_LARGE, 2, 2, 100 * Mbps), ps(FAN_LARGE, 4, 1, 100 * Mbps), ps(FAN_LARGE, 8, 0.5, 100 * Mbps),
    ps(FAN_LARGE, 4, 8, Gbps),
    ps(FAN_SMALL, 4, 0.1, 100 * Mbps), ps(FAN_SMALL, 8, 0.1, 100 * Mbps), ps(FAN_SMALL, 8, 0.025, 100 * Mbps),
    ps(FAN_SMALL, 4, 0.025, 100 * Mbps), ps(FAN_SMALL, 8, 1, Gbps),
    ps(FAT, 2, 1, 100 * Mbps, Gbps), ps(FAT, 4, 2, 100 * Mbps, Gbps), ps(FAT, 4, 1, 100 * Mbps, 400 * Mbps),
    ps(SHARDED, 2, 1, 100 * Mbps, servers=2), ps(SHARDED, 4, 1, 100 * Mbps, servers=2),
    ps(SHARDED, 4, 1, 100 * Mbps, servers=4), ps(SHARDED, 8, 0.25, 100 * Mbps, servers=2),
    ring(RING, 4, 1, 100 * Mbps), ring(RING, 8, 1, 100 * Mbps), ring(RING, 4, 0.2, 100 * Mbps),
    # Rounds of 2-17 ms: a few round trips and the hosts' scheduling weigh.
    ps(SHORT, 1, 0.1, 100 * Mbps), ps(SHORT, 1, 1, Gbps), ps(SHORT, 1, 0.1, Gbps), ring(SHORT, 4, 0.1, 100 * Mbps),
    ring(SHORT, 8, 0.1, 100 * Mbps),
]
# With netem: a fixed one-way latency per NIC (a route crosses two).
LATENCY_CASES = [
    ps(LATENCY, 1, 0.1, 100 * Mbps, delay_s=1e-3), ps(LATENCY, 4, 0.1, 100 * Mbps, delay_s=1e-3),
    ps(LATENCY, 4, 1, 100 * Mbps, delay_s=1e-3), ps(LATENCY, 1, 1, Gbps, delay_s=5e-3),
    ring(LATENCY, 4, 0.1, 100 * Mbps, delay_s=1e-3),
]
# --quick: one or two of each regime.
QUICK = [DEFAULT[i] for i in (0, 1, 4, 6, 8, 9, 13, 16, 19, 22, 25)]
QUICK_LATENCY = LATENCY_CASES[:2]


def hosts_needed(cases):
    return max(c.workers + (c.servers if c.scheme == "ps" else 0) for c in cases)


# ---- the simulated side -----------------------------------------------------------------


def yaml_value(v):
    """A Python value in YAML flow style (dicts, numbers, strings of safe characters)."""
    if isinstance(v, dict):
        return "{" + ", ".join("{}: {}".format(k, yaml_value(x)) for k, x in v.items()) + "}"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def scenario(case, network, nic_latency_s, rounds):
    """The pssim scenario (YAML text) of `case` under `network`: network.* keys such as
    {"model": "tcp", "framing": ETHERNET, "tcp": {...}}. nic_latency_s: one-way latency of
    each NIC (the testbed's, measured: a route crosses two), plus the case's delay."""
    case.check()
    latency = "{}ns".format(round((nic_latency_s + case.delay_s) * 1e9))
    nic = lambda bps: yaml_value({"bandwidth": "{}bps".format(round(bps)), "latency": latency})  # noqa: E731
    lines = [
        "# The testbed case {} (bench/testbed/cases.py), generated.".format(case.name),
        "name: testbed-{}".format(case.name),
        "model: {{kind: synthetic, params: {}, flops_per_sample: 1FLOP}}".format(case.bytes // 4),
        "data: {batch_size: 1}",
        "training: {{stop: {{updates: {}}}}}".format(WARMUP + rounds),
    ]
    if case.scheme == "ps":
        lines.append("cluster: {{workers: {{count: {}, throughput: 1000PFLOPS}}, servers: {{count: {k}, shards: {k}, "
                     "partition: bytes}}}}".format(case.workers, k=case.servers))
        lines.append("protocol: {mode: sync}")
    else:
        lines.append("cluster: {{workers: {{count: {}, throughput: 1000PFLOPS}}}}".format(case.workers))
        lines.append("protocol: {mode: allreduce, algorithm: ring}")
    lines.append("network:")
    lines.append("  topology: star")
    lines.append("  worker_nic: " + nic(case.worker_bps))
    if case.scheme == "ps":
        lines.append("  server_nic: " + nic(case.server_rate))
    for key, value in network.items():
        lines.append("  {}: {}".format(key, yaml_value(value)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # the default set, its rounds and the time they take
    total = 0.0
    for c in DEFAULT:
        run = (WARMUP + c.rounds()) * c.estimate_s()
        total += run
        print("{:24} {:24} {:3} rounds of {:6.1f} ms: {:.2f} s".format(c.name, c.regime, c.rounds(),
                                                                       1e3 * c.estimate_s(), run))
    print("{} cases, {:.0f} s of rounds per repetition".format(len(DEFAULT), total))
