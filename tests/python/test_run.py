"""pssim.run, pssim.sweep, pssim.load and pssim.plot against the pssim command."""
import json
import os
import re
import signal
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

import pssim
from conftest import ROOT, without_wall_clock

QUICK = {"training.stop.sim_time": "2s", "data.eval_max": 1000}


def test_run_gives_the_cli_figures_and_files(cli, tmp_path):
    sets = [a for k, v in QUICK.items() for a in ("--set", "{}={}".format(k, v))]
    status, _, err = cli("run", "scenarios/quickstart.yaml", *sets, "-o", tmp_path / "cli", "-q")
    assert status == 0, err
    r = pssim.run(ROOT / "scenarios/quickstart.yaml", overrides=QUICK, output=tmp_path / "py")
    expected = json.loads((tmp_path / "cli" / "summary.json").read_text())
    assert without_wall_clock(r.summary) == without_wall_clock(expected)
    assert r.summary["final_test_accuracy"] > 0.5
    for name in ("metrics.csv", "rounds.csv", "workers.csv", "links.csv", "link_utilization.csv", "scenario.yaml"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    loaded = pssim.load(tmp_path / "cli")
    pd.testing.assert_frame_equal(loaded.metrics, r.metrics)
    assert loaded.scenario == r.scenario and loaded.scenario["cluster"]["workers"]["count"] == 8
    assert list(r.evals.columns[:2]) == ["time_s", "event"] and (r.evals["event"] == "eval").all()
    assert len(r.rounds) == r.summary["rounds"] and len(r.workers) == 8
    # The final parameters, named as the module's state_dict would name them.
    assert [k for k in r.parameters] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert r.parameters["fc1.weight"].shape == (256, 784)


def test_scenario_as_dict_or_string_and_overrides(tmp_path):
    scenario = {"name": "tiny", "model": {"kind": "synthetic", "params": "1M", "flops_per_sample": "1MFLOP"},
                "training": {"stop": {"updates": 3}}, "cluster": {"workers": {"count": 4}}}
    a = pssim.run(scenario, overrides={"cluster.workers.count": 2, "protocol": {"mode": "ssp", "staleness": 1}},
                  seed=5)
    assert a.scenario["cluster"]["workers"]["count"] == 2 and a.scenario["seed"] == 5
    assert a.scenario["protocol"]["mode"] == "ssp" and a.scenario["protocol"]["staleness"] == 1
    assert a.parameters is None and a.summary["updates"] == 3
    b = pssim.run("name: tiny\nmodel: {kind: synthetic, params: 1M, flops_per_sample: 1MFLOP}\n"
                  "training: {stop: {updates: 3}}\n", overrides=["cluster.workers.count=2", "protocol.mode=ssp",
                                                                "protocol.staleness=1"], seed=5)
    assert without_wall_clock(a.summary) == without_wall_clock(b.summary)
    kept = a.directory
    assert kept.is_dir()
    del a
    assert not kept.exists()  # the temporary directory goes with its result


def test_numpy_values_and_strings_are_taken_as_python_values(tmp_path):
    import numpy as np
    tiny = {"name": "tiny", "model": {"kind": "synthetic", "params": "1M", "flops_per_sample": "1MFLOP"},
            "training": {"stop": {"updates": 3}}, "cluster": {"workers": {"count": 2}}}
    # numpy scalars and arrays wherever Python numbers and lists go: a sweep built with np.arange.
    for count in np.arange(2, 4):
        r = pssim.run(tiny, overrides={"cluster.workers.count": count, "cluster.workers.speed":
                                       {"dist": "list", "factors": np.ones(count)}}, seed=np.int64(2),
                      threads=np.int32(1))
        assert r.scenario["cluster"]["workers"]["count"] == count and r.scenario["seed"] == 2
    # A Python string is that string: no comment, mapping or number made of it.
    r = pssim.run(tiny, overrides={"description": "run #2"})
    assert r.scenario["description"] == "run #2"
    r = pssim.run(tiny, overrides={"description": "exp: 1"})
    assert r.scenario["description"] == "exp: 1"
    r = pssim.run(tiny, overrides={"protocol.mode": "async", "description": "4"})
    assert r.scenario["protocol"]["mode"] == "async" and r.scenario["description"] == "4"
    # "key=value" strings are --set arguments: their values are YAML, as on the command line.
    r = pssim.run(tiny, overrides=["protocol={mode: ssp, staleness: 1}"])
    assert r.scenario["protocol"]["mode"] == "ssp" and r.scenario["protocol"]["staleness"] == 1


def test_a_path_that_does_not_exist_is_no_such_file(cli):
    with pytest.raises(pssim.InputError, match="scenarios/quikstart: error: no such file") as e:
        pssim.run("scenarios/quikstart")
    status, _, err = cli("run", "scenarios/quikstart")
    assert status == 2 and err.strip() == str(e.value)


def test_errors_carry_the_cli_message(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nmodel: {kind: synthetic, params: 1M, flops_per_sample: 1MFLOP}\n"
                   "training: {stop: {updates: 3}}\ncluster: {workers: {cont: 4}}\n")
    status, _, err = cli("run", bad, "-o", tmp_path / "out")
    assert status == 2
    with pytest.raises(pssim.ScenarioError) as e:
        pssim.run(bad)
    assert str(e.value) == err.strip()
    assert "bad.yaml:4:" in str(e.value) and "count" in str(e.value)  # file:line and "did you mean"
    with pytest.raises(pssim.ScenarioError, match=r"^<string>:4:"):
        pssim.run(bad.read_text())
    with pytest.raises(pssim.ScenarioError, match=r"^<--set cluster.workers.count=-1>:1:23: error: .*out of range"):
        pssim.run(ROOT / "scenarios/quickstart.yaml", overrides={"cluster.workers.count": -1})
    # A scenario that cannot be built: the same message as the pssim command's.
    explicit = bad.read_text().replace("cluster: {workers: {cont: 4}}", "cluster: {workers: {count: 2}}") + \
        textwrap.dedent("""\
        network:
          topology: explicit
          switches: [s0, s1]
          workers: [worker-0, worker-1]
          servers: [server-0]
          links: [{from: worker-0, to: s0, bandwidth: 1Gbps}, {from: worker-1, to: s0, bandwidth: 1Gbps},
                  {from: server-0, to: s1, bandwidth: 1Gbps}]
        """)
    bad.write_text(explicit)
    status, _, err = cli("run", bad, "-o", tmp_path / "out")
    assert status == 2
    with pytest.raises(pssim.InputError) as e:
        pssim.run(bad)
    assert "pssim: error: " + str(e.value) == err.strip()
    with pytest.raises(pssim.InputError, match="neither a run"):
        pssim.load(tmp_path)


def test_thread_and_job_counts_are_checked_as_the_command_checks_them(tmp_path):
    tiny = (
        "name: tiny\nmodel: {kind: synthetic, params: 1M, flops_per_sample: 1MFLOP}\ntraining: {stop: {updates: 1}}\n"
        "cluster: {workers: {count: 2}}\n")
    for bad in (1025, 0, -1, 1.5, True, "2", 10**6):
        with pytest.raises(pssim.InputError, match=r"^threads = .*: must be a whole number from 1 to 1024$"):
            pssim.run(tiny, threads=bad)
    spec = tmp_path / "sweep.yaml"
    (tmp_path / "tiny.yaml").write_text(tiny)
    spec.write_text("name: s\nbase: tiny.yaml\nseeds: [1]\n")
    with pytest.raises(pssim.InputError, match=r"^jobs = 1000000: must be"):
        pssim.sweep(spec, output=tmp_path / "s", jobs=10**6)
    with pytest.raises(pssim.InputError, match=r"^threads = 0: must be"):
        pssim.sweep(spec, output=tmp_path / "s", threads=0)
    assert pssim.run(tiny, threads=1024).summary["updates"] == 1


def test_load_of_a_damaged_directory_names_the_file(tmp_path):
    r = pssim.run("name: tiny\nmodel: {kind: synthetic, params: 1M, flops_per_sample: 1MFLOP}\n"
                  "training: {stop: {updates: 2}}\ncluster: {workers: {count: 2}}\n", output=tmp_path / "run")
    assert pssim.load(r.directory).summary["updates"] == 2
    damage = [("summary.json", b'{"updates": 2,'), ("summary.json", b"\xff\xfe{}"),
              ("scenario.yaml", b"name: [unclosed\n"), ("metrics.csv", b'time_s,event\n"1,update\n'),
              ("workers.csv", b"\xff\xfe\x00")]
    for name, content in damage:
        original = (r.directory / name).read_bytes()
        (r.directory / name).write_bytes(content)
        with pytest.raises(pssim.InputError, match="^" + re.escape(str(r.directory / name)) + r": damaged or unreadable \("):
            pssim.load(r.directory)
        (r.directory / name).write_bytes(original)


def test_sweep_and_load_match_the_cli(cli, tmp_path):
    base = tmp_path / "base.yaml"
    base.write_text("name: tiny\nmodel: {kind: synthetic, params: 1M, flops_per_sample: 1MFLOP}\n"
                    "training: {stop: {updates: 4}}\n")
    spec = tmp_path / "sweep.yaml"
    spec.write_text("name: tiny-sweep\nbase: base.yaml\ngrid:\n  cluster.workers.count: [2, 4]\n"
                    "  protocol.mode: [sync, async]\n")
    status, _, err = cli("sweep", spec, "-o", tmp_path / "cli", "-q")
    assert status == 0, err
    s = pssim.sweep(spec, output=tmp_path / "py", jobs=2)
    assert (tmp_path / "py" / "sweep.csv").read_bytes() == (tmp_path / "cli" / "sweep.csv").read_bytes()
    assert len(s) == 4 and all(isinstance(p, pssim.Result) for p in s)
    assert list(s.table["cluster.workers.count"]) == [2, 2, 4, 4]
    loaded = pssim.load(tmp_path / "cli")
    pd.testing.assert_frame_equal(loaded.table, s.table)
    assert [p.summary["updates"] for p in loaded] == [p.summary["updates"] for p in s]


def test_plot_draws_the_figures(tmp_path):
    r = pssim.run(ROOT / "scenarios/quickstart.yaml", overrides=QUICK, threads=2)
    files = pssim.plot(r, output=tmp_path / "plots")
    names = {p.name for p in files}
    assert "accuracy_vs_time.png" in names and "link_utilization.png" in names and "accuracy_vs_time.svg" in names
    assert all(p.stat().st_size > 10_000 for p in files)
    # Every file it wrote, in subfolders too (a sweep's per-point figures).
    written = sorted(p for p in (tmp_path / "plots").rglob("*") if p.is_file())
    assert sorted(files) == written


def test_progress_bar_only_when_asked_or_interactive(capsys):
    from pssim import _progress
    bar = _progress.Bar(True, "pssim run", 1.0)
    bar.run_progress(0.5, 1.25, 40)
    bar.close()
    assert "sim 1.25 s, 40 updates" in capsys.readouterr().err
    bar = _progress.Bar(None, "pssim run", 1.0)  # pytest's stderr is no terminal
    bar.run_progress(0.5, 1.25, 40)
    bar.close()
    assert capsys.readouterr().err == ""


def test_ctrl_c_stops_a_run_cleanly(tmp_path):
    # A long timing-only run in a child process; SIGINT once it is under way.
    child = textwrap.dedent("""\
        import sys, time
        sys.path.insert(0, {root!r})
        import pssim
        try:
            pssim.run({scenario!r}, overrides={{"training.stop.sim_time": "100000s"}}, output={out!r},
                      progress=lambda *a: None)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        """).format(root=str(ROOT), scenario=str(ROOT / "scenarios/timing/async-stragglers.yaml"),
                    out=str(tmp_path / "run"))
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    for _ in range(200):  # the run has started once its resolved scenario is written
        if (tmp_path / "run" / "scenario.yaml").exists():
            break
        p.poll()
        assert p.returncode is None
        import time
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGINT)
    out, _ = p.communicate(timeout=30)
    assert out.strip() == "KeyboardInterrupt"
    assert p.returncode == 0
    assert not (tmp_path / "run" / "summary.json").exists()
    assert not (tmp_path / "run" / ".pssim.lock").exists()


def _without_wall_time(text):
    return re.sub(r"\([0-9.]+ s wall\)", "(wall)", text)


def test_python_module_command_is_the_pssim_command(cli, py_cli, tmp_path):
    """python3 -m pssim takes the same arguments as pssim and prints, writes and exits the same."""
    sweep = tmp_path / "s.yaml"
    sweep.write_text("name: s\nbase: {}\nset: {{training.stop.sim_time: 0.5s, data.eval_max: 500}}\n"
                     "grid: {{cluster.workers.count: [2, 4]}}\n".format(ROOT / "scenarios/quickstart.yaml"))
    calls = [
        ("run", ROOT / "scenarios/quickstart.yaml", "--set", "training.stop.sim_time=1s", "--seed", "3", "-o", "{}/r"),
        ("sweep", sweep, "--shard", "1/2", "-o", "{}/s"),
        ("sweep", sweep, "--shard", "2/2", "-o", "{}/s"),
        ("sweep", sweep, "--merge", "-o", "{}/s"),
        ("validate", ROOT / "scenarios/quickstart.yaml", sweep),
        ("run", ROOT / "scenarios/nothing.yaml"),                    # exit 2, same message
        ("run", ROOT / "scenarios/quickstart.yaml", "--set", "cluster.workers.cont=2"),
        ("sweep", sweep, "--shard", "3/2"),
        ("frobnicate",),
    ]
    for call in calls:
        results = []
        for name, command in (("cli", cli), ("py", py_cli)):
            args = [str(a).format(tmp_path / name) for a in call]
            status, out, err = command(*args)
            results.append((status, _without_wall_time(out.replace(str(tmp_path / name), "DIR")),
                            err.replace(str(tmp_path / name), "DIR").replace("python3 -m pssim", "pssim")))
        assert results[0] == results[1], call
    assert results[0][0] == 2  # the unknown command
    for f in ("summary.json", "metrics.csv", "scenario.yaml"):
        a, b = (tmp_path / d / "r" / f for d in ("cli", "py"))
        if f == "summary.json":
            assert without_wall_clock(json.loads(a.read_text())) == without_wall_clock(json.loads(b.read_text()))
        else:
            assert a.read_bytes() == b.read_bytes(), f
    assert (tmp_path / "cli/s/sweep.csv").read_bytes() == (tmp_path / "py/s/sweep.csv").read_bytes()
    # Default output directories are the command's too: results/<name>, results/sweeps/<name>.
    status, out, _ = py_cli("run", ROOT / "scenarios/quickstart.yaml", "--set", "training.stop.sim_time=0.2s",
                            "--set", "name=pymod", cwd=tmp_path)
    assert status == 0 and (tmp_path / "results/pymod/summary.json").exists()
    status, out, _ = py_cli("sweep", sweep, "-q", cwd=tmp_path)
    assert status == 0 and (tmp_path / "results/sweeps/s/sweep.csv").exists()


def test_plot_names_results_by_their_scenario_or_by_labels(tmp_path):
    a = pssim.run(ROOT / "scenarios/quickstart.yaml", overrides=QUICK)
    b = pssim.run(ROOT / "scenarios/quickstart.yaml", overrides=dict(QUICK, **{"protocol.mode": "async"}))
    pssim.plot(a, b, output=tmp_path / "default")
    svg = (tmp_path / "default" / "accuracy_vs_time.svg").read_text()
    assert "quickstart (1)" in svg and "quickstart (2)" in svg and "<!-- out -->" not in svg
    pssim.plot(a, b, output=tmp_path / "named", labels=["sync", "async"])
    svg = (tmp_path / "named" / "accuracy_vs_time.svg").read_text()
    assert "<!-- sync -->" in svg and "<!-- async -->" in svg and "target 80 %: reached by no run" in svg
    with pytest.raises(pssim.InputError, match="3 labels for 2 results"):
        pssim.plot(a, b, output=tmp_path / "x", labels=["a", "b", "c"])
