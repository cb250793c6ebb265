"""bench/testbed's pure parts: a case's scenario (through pssim, against closed forms), the
error tables and the calibration. The real-TCP side needs root and is a benchmark, not a test."""
import math
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench" / "testbed"))
import cases  # noqa: E402
import fit  # noqa: E402
import report  # noqa: E402
import simulate  # noqa: E402

PSSIM = ROOT / "build" / "release" / "sim" / "cli" / "pssim"
B = 125e6  # 1 Gbps in bytes/s
F = 1448 / 1538  # ethernet framing at MTU 1500


@pytest.mark.parametrize("case, network, expected", [
    # Sync PS, 4 workers x 1 MB through one server NIC: 2 N M / B.
    (cases.ps("x", 4, 1, cases.Gbps), {}, 2 * 4 * 1e6 / B),
    # With framing the wire carries M / f: 2 N M / (f B), under maxmin and tcp's factor 1.
    (cases.ps("x", 4, 1, cases.Gbps), {"framing": cases.ETHERNET}, 2 * 4 * 1e6 / (F * B)),
    # 2 shards on 2 servers: 2 max(M / B_worker, N M / (k B_server)).
    (cases.ps("x", 4, 8, cases.Gbps, servers=2), {}, 2 * max(8e6 / B, 4 * 8e6 / (2 * B))),
    # A fat server: the workers' NICs bind, 2 M / B_worker.
    (cases.ps("x", 4, 2, 100 * cases.Mbps, cases.Gbps), {}, 2 * 2e6 / 12.5e6),
    # Ring all-reduce: 2 (N - 1) / N x M / B.
    (cases.ring("x", 4, 8, cases.Gbps), {"framing": cases.ETHERNET}, 2 * 3 / 4 * 8e6 / (F * B)),
])
def test_a_case_scenario_gives_the_closed_form(case, network, expected):
    assert simulate.period(PSSIM, case, network, 0.0, 3) == pytest.approx(expected, rel=1e-6)


def test_nic_latency_and_tcp_factors_reach_the_scenario():
    # Ring of 4, 1 MB, NIC latency 10 us: each of the 6 steps waits a route (2 NICs) x the
    # latency factor, then moves M / N at 0.5 of the wire: 6 x (20 us x 2 + 250 kB / (0.5 B)).
    case = cases.ring("x", 4, 1, cases.Gbps)
    network = {"model": "tcp", "tcp": {"bandwidth_factor": 0.5, "latency_factor": 2.0, "crosstraffic": 0.0}}
    got = simulate.period(PSSIM, case, network, 10e-6, 3)
    assert got == pytest.approx(6 * (2 * 20e-6 + 250e3 / (0.5 * B)), rel=1e-6)


def test_default_cases_are_valid_and_distinct(tmp_path):
    everything = cases.DEFAULT + cases.LATENCY_CASES
    assert len({c.name for c in everything}) == len(everything)
    assert set(cases.QUICK) <= set(cases.DEFAULT)
    files = []
    for c in everything:
        c.check()
        assert 3 <= c.rounds() <= 100
        path = tmp_path / (c.name + ".yaml")
        path.write_text(cases.scenario(c, {"model": "tcp", "framing": cases.ETHERNET}, 15e-6, c.rounds()))
        files.append(str(path))
    done = subprocess.run([str(PSSIM), "validate"] + files, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_bad_case_is_refused():
    with pytest.raises(ValueError, match="multiple of 4 x 3"):
        cases.ps("x", 4, 1, cases.Gbps, servers=3).check()
    with pytest.raises(ValueError, match="too few workers"):
        cases.ring("x", 1, 1, cases.Gbps).check()


def test_errors_and_summaries():
    assert report.error(110, 100) == pytest.approx(0.1)
    assert report.summary([0.02, -0.3, 0.05, -0.01]) == (pytest.approx(0.035), -0.3)
    results = [
        {"case": cases.ps("one", 1, 8, cases.Gbps), "rounds": 3, "measured": [0.10, 0.12, 0.11],
         "predicted": {"a": 0.099, "b": 0.121}},
        {"case": cases.ps("one", 2, 8, cases.Gbps), "rounds": 3, "measured": [0.2],
         "predicted": {"a": 0.23, "b": 0.19}},
        {"case": cases.ring("ring", 2, 8, cases.Gbps), "rounds": 3, "measured": [0.05],
         "predicted": {"a": 0.05, "b": 0.04}},
    ]
    per_case = report.case_table(results, ["a", "b"]).split("\n")
    assert per_case[2] == "| ps-n1-8MB-1G | one | 3 | 110.0 (100.0-120.0) |  | 99.0 | 121.0 | -10.0 % | +10.0 % |"
    per_regime = report.regime_table(results, ["a", "b"]).split("\n")
    # Regime "one": a's errors -10 % and +15 %, b's +10 % and -5 %.
    assert per_regime[2] == "| one | 2 | 12.5 % (+15.0 %) | 7.5 % (+10.0 %) |"
    assert per_regime[3] == "| ring | 1 | 0.0 % (+0.0 %) | 20.0 % (-20.0 %) |"
    assert per_regime[4] == "| all | 3 | 10.0 % (+15.0 %) | 10.0 % (-20.0 %) |"


def test_the_fit_finds_known_factors():
    # A stand-in for pssim: round = bytes / (bandwidth_factor x B) + messages x latency
    # factor x 50 us; the "measurements" are made with 0.93 and 21.5.
    jobs = [(1e6, 2), (8e6, 2), (2.5e5, 14), (1e5, 14), (4e6, 6)]

    def predict(bandwidth_factor, latency_factor):
        return [b / (bandwidth_factor * B) + n * latency_factor * 50e-6 for b, n in jobs]

    measured = predict(0.93, 21.5)
    (bw, lat), cost = fit.fit(predict, measured, start=(1.0, 13.01), bounds=((0.5, 1.0), (0.0, 100.0)))
    assert bw == pytest.approx(0.93, abs=0.002)
    assert lat == pytest.approx(21.5, abs=0.2)
    assert cost < 2e-3
    # At a bound: a best bandwidth factor above 1 stops at 1.
    (bw, _), _ = fit.fit(predict, predict(1.2, 5.0), start=(1.0, 13.01), bounds=((0.5, 1.0), (0.0, 100.0)))
    assert bw == 1.0


def test_golden_section_on_a_parabola():
    assert fit.golden_section(lambda x: (x - math.pi) ** 2, 0, 10, 1e-4) == pytest.approx(math.pi, abs=1e-4)


def test_cases_the_machine_could_not_carry_are_left_out():
    line = cases.payload_rate
    checks = [{"line_bps": None, "flows": 1, "payload_Bps": [3e8]},
              {"line_bps": 1e8, "flows": 1, "payload_Bps": [0.99 * line(1e8)]},
              {"line_bps": 1e8, "flows": 2, "payload_Bps": [line(1e8), 0.975 * line(1e8)]},
              {"line_bps": 1e8, "flows": 8, "payload_Bps": [line(1e8)] * 7 + [0.96 * line(1e8)]},
              {"line_bps": 1e9, "flows": 1, "payload_Bps": [line(1e9)]}]
    assert cases.ps("x", 1, 1, 1e8).busy_flows() == 1 and report.emulated(cases.ps("x", 1, 1, 1e8), checks)
    assert cases.ps("x", 2, 1, 1e8).busy_flows() == 2 and report.emulated(cases.ps("x", 2, 1, 1e8), checks)
    assert cases.ring("x", 8, 1, 1e8).busy_flows() == 8 and not report.emulated(cases.ring("x", 8, 1, 1e8), checks)
    # A fat server at 1 Gbps for 4 workers at 100 Mbps: 4 flows each way, no check of 8 here.
    fat = cases.ps("x", 4, 1, 1e8, 1e9)
    assert fat.busy_flows() == 8 and not report.emulated(fat, checks)
    assert not report.emulated(cases.ps("x", 4, 8, 4e8), checks)  # no check at 400 Mbps
    assert "| 8 flows at once, 100M | 11.30 | 11.77 | 96.0% |" in report.checks_table(checks)


def test_pull_spread_is_the_median_of_the_repetitions():
    assert report.spread_text([0.4, 0.5, None, 0.45]) == "45 %"
    assert report.spread_text([None, None]) == "" and report.spread_text(None) == ""
