"""Closed forms of a synchronous iteration's duration, for the schemes and networks where
pssim's flow model gives them exactly (a star network, equal workers, no noise).

    round_time(scenario) -> seconds or None
    worker_nic_bound(scenario) -> seconds or None

`scenario` is a resolved scenario as written next to a run's results (scenario.yaml,
loaded with yaml.safe_load). With M the model's bytes, N workers, B_w and B_s the worker
and server NIC bandwidths, lambda the NIC latency (so alpha = 2 lambda between two hosts)
and c the compute time of one iteration:

    PS, S shards on S servers       2 max(M / B_w, N M / (S B_s)) + 2 alpha + c
    colocated PS (a shard a worker) 2 (N-1)/N M / B_w + 2 alpha + c
    ring all-reduce                 2 (N-1)/N M / B_w + 2 (N-1) alpha + c
    halving-doubling (N = 2^k)      2 (N-1)/N M / B_w + 2 log2(N) alpha + c

(tests/ps, tests/collective and tests/experiment pin these against the simulator.)
The workers' NIC bound of a sharded PS, 2 M / B_w + 2 alpha + c, is what no number of
shards removes: each worker's own NIC carries the whole model each way every round.
"""
import math
import re

import schemes

_UNITS = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_TIME = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _number(text):
    m = re.fullmatch(r"([0-9.eE+-]+)([kKMGTP]?)", str(text).strip())
    return float(m.group(1)) * _UNITS[m.group(2)]


def _bandwidth(text):
    """Bytes per second from 10Gbps, 1.25GB/s, 500MB/s ..."""
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([kKMGTP]?)(bps|B/s)", str(text).strip())
    value = float(m.group(1)) * _UNITS[m.group(2)]
    return value / 8 if m.group(3) == "bps" else value


def _duration(text):
    m = re.fullmatch(r"([0-9.eE+-]+)\s*(ns|us|ms|s)", str(text).strip())
    return float(m.group(1)) * _TIME[m.group(2)]


def _flops(text):
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([kKMGTP]?)FLOPS?", str(text).strip())
    return float(m.group(1)) * _UNITS[m.group(2)]


def _terms(s):
    """(N, M, B_w, alpha, c) of an exact case (star, synthetic model, equal workers), or None."""
    network, cluster, model = s["network"], s["cluster"], s["model"]
    workers = cluster["workers"]
    if network["topology"] != "star" or network.get("nic_overrides"):
        return None
    if model["kind"] != "synthetic" or workers["speed"]["dist"] != "constant" or workers["speed"]["factor"] != 1:
        return None
    if float(workers["noise"]["sigma"]) != 0:
        return None
    n = int(_number(workers["count"]))
    m = 4 * _number(model["params"])
    b_w = _bandwidth(network["worker_nic"]["bandwidth"])
    alpha = 2 * _duration(network["worker_nic"]["latency"])
    compute = _number(s["data"]["batch_size"]) * _flops(model["flops_per_sample"]) / _flops(workers["throughput"])
    return n, m, b_w, alpha, compute


def _bulk_synchronous(s, layout):
    """The scheme is one round of every worker's gradient per iteration (the registry's
    bulk_synchronous), with its parameters laid out so."""
    scheme = schemes.find(s["protocol"]["mode"])
    return scheme.get("bulk_synchronous", False) and scheme["layout"] == layout


def worker_nic_bound(s):
    terms = _terms(s)
    if terms is None or not _bulk_synchronous(s, "server-shards"):
        return None
    _, m, b_w, alpha, compute = terms
    return 2 * m / b_w + 2 * alpha + compute


def round_time(s):
    terms = _terms(s)
    if terms is None:
        return None
    n, m, b_w, alpha, compute = terms
    network, cluster, protocol = s["network"], s["cluster"], s["protocol"]
    if _bulk_synchronous(s, "all-reduced"):
        algorithm = protocol["algorithm"]
        if algorithm == "ring":
            return 2 * (n - 1) / n * m / b_w + 2 * (n - 1) * alpha + compute
        if algorithm == "halving-doubling" and n & (n - 1) == 0:
            return 2 * (n - 1) / n * m / b_w + 2 * math.log2(n) * alpha + compute
        return None
    if not _bulk_synchronous(s, "server-shards") or int(protocol.get("backup_workers", 0)) != 0:
        return None
    servers = cluster["servers"]
    if servers.get("apply_bandwidth"):
        return None
    if servers["placement"] == "colocated":
        if int(_number(servers["shards"])) != n:
            return None
        return 2 * (n - 1) / n * m / b_w + 2 * alpha + compute
    shards, hosts = int(_number(servers["shards"])), int(_number(servers["count"]))
    if shards != hosts or _duration(network["server_nic"]["latency"]) != alpha / 2:
        return None
    b_s = _bandwidth(network["server_nic"]["bandwidth"])
    return 2 * max(m / b_w, n * m / (shards * b_s)) + 2 * alpha + compute
