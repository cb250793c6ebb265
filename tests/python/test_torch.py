"""PyTorch modules as the math: the same parameters as the built-in networks, determinism
for any thread count, FLOPs and errors."""
import pathlib
import sys

import numpy as np
import pytest
import torch
import yaml
from torch import nn

import pssim
from conftest import ROOT

SCENARIO = ROOT / "scenarios/quickstart.yaml"


class Mlp(nn.Module):
    """The built-in `mlp` (784-256-10, ReLU), tensor for tensor."""

    def __init__(self, dropout=0.0):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x.flatten(1)))))


class MnistNet(nn.Module):
    """The built-in `mnist-net` preset (PyTorch's MNIST example)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv2(torch.relu(self.conv1(x)))), 2)
        return self.fc2(torch.relu(self.fc1(x.flatten(1))))


def initial_mlp(cli, tmp_path):
    """A torch Mlp holding the built-in mlp's initial parameters, imported from the .npy
    files `pssim grad` exports."""
    status, _, err = cli("grad", SCENARIO, "--set", "training.stop.updates=1", "-o", tmp_path / "grad")
    assert status == 0, err
    module = Mlp()
    state = {name: torch.from_numpy(np.load(tmp_path / "grad" / "params" / (name + ".npy")))
             for name in module.state_dict()}
    module.load_state_dict(state)
    return module


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_torch_mlp_gives_the_builtin_parameters(cli, tmp_path, mode):
    sets = {"protocol.mode": mode, "training.stop": {"updates": 6}, "data.eval_max": 500,
            "cluster.workers.count": 4}
    builtin = pssim.run(SCENARIO, overrides=sets, threads=2)
    torched = pssim.run(SCENARIO, overrides=sets, threads=2, model=initial_mlp(cli, tmp_path))
    # The same cluster: sizes and FLOPs counted from the module's shapes are the built-in's,
    # so every message and computation takes the same simulated time ...
    for key in ("sim_time_s", "updates", "gradients_applied", "bytes_sent", "mean_staleness", "messages"):
        assert torched.summary[key] == builtin.summary[key], key
    assert torched.scenario["model"] == {"kind": "torch", "math": True}
    # ... and the same math, to float tolerance (Eigen and PyTorch sum in other orders).
    assert list(torched.parameters) == list(builtin.parameters)
    for name, value in builtin.parameters.items():
        np.testing.assert_allclose(torched.parameters[name], value, rtol=1e-4, atol=2e-6, err_msg=name)
    moved = max(np.abs(v - np.load(tmp_path / "grad" / "params" / (k + ".npy"))).max()
                for k, v in builtin.parameters.items())
    assert moved > 1e-3  # the updates did change the parameters
    assert torched.summary["final_test_accuracy"] == pytest.approx(builtin.summary["final_test_accuracy"],
                                                                   abs=0.005)


def test_torch_runs_are_the_same_bytes_on_any_thread_count(tmp_path):
    sets = {"protocol.mode": "async", "training.stop": {"updates": 40}, "data.eval_max": 500,
            "training.eval.every": "20ms"}
    outputs = []
    for threads in (1, 2):
        torch.manual_seed(3)
        r = pssim.run(SCENARIO, overrides=sets, threads=threads, output=tmp_path / str(threads),
                      model=Mlp(dropout=0.5))
        outputs.append(r)
    for name in ("metrics.csv", "workers.csv", "links.csv", "link_utilization.csv", "scenario.yaml"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name
    for name, value in outputs[0].parameters.items():
        assert np.array_equal(value, outputs[1].parameters[name]), name
    assert torch.get_num_threads() > 0  # put back after the run


def test_flops_counted_from_the_layer_shapes_are_the_builtin_counts():
    # Timing only (math false): the simulated time of 3 rounds depends on FLOPs and sizes.
    timing = yaml.safe_load(SCENARIO.read_text())
    timing["training"] = {"stop": {"updates": 3}}
    timing["model"] = {"kind": "cnn", "preset": "mnist-net", "math": False}
    builtin = pssim.run(timing)
    torched = pssim.run(dict(timing, model={"kind": "torch", "math": False}), model=MnistNet())
    assert torched.summary["sim_time_s"] == builtin.summary["sim_time_s"]
    assert torched.summary["bytes_sent"] == builtin.summary["bytes_sent"]
    given = pssim.run(dict(timing, model={"kind": "torch", "flops_per_sample": "1GFLOP", "math": False}),
                      model=MnistNet())
    assert given.summary["sim_time_s"] > 1.5 * builtin.summary["sim_time_s"]  # 1 GFLOP against 72 MFLOP
    # What was counted (or given) is recorded in summary.json.
    assert torched.summary["flops_per_sample"] == builtin.summary["flops_per_sample"] > 7e7
    assert torched.summary["parameters"] == builtin.summary["parameters"] == 1_199_882
    assert given.summary["flops_per_sample"] == 1e9


def test_module_and_datasets_from_files(tmp_path, monkeypatch):
    (tmp_path / "net.py").write_text(
        "import torch\n"
        "def make_model():\n"
        "    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 3))\n"
        "def make_data():\n"
        "    g = torch.Generator().manual_seed(0)\n"
        "    x = torch.randn(300, 12, generator=g)\n"
        "    y = x[:, :3].argmax(1)\n"
        "    return torch.utils.data.TensorDataset(x[:200], y[:200]), (x[200:], y[200:])\n")
    monkeypatch.chdir(tmp_path)
    scenario = {"name": "files", "model": {"kind": "torch", "module": "net.py:make_model"},
                "data": {"kind": "torch", "module": "net.py:make_data", "batch_size": 20},
                "training": {"stop": {"updates": 60}, "optimizer": {"lr": 0.5}},
                "cluster": {"workers": {"count": 2}}}
    a, b = pssim.run(scenario), pssim.run(scenario)
    assert a.summary["final_test_accuracy"] > 0.8  # it learned
    for name, value in a.parameters.items():  # the module built from the seed: same start
        assert np.array_equal(value, b.parameters[name])
    c = pssim.run(scenario, seed=2)
    assert not np.array_equal(a.parameters["1.weight"], c.parameters["1.weight"])
    # Datasets given as objects, of another shape: (inputs, labels) pairs and a Dataset.
    x = torch.randn(64, 2, 3, 2)
    items = [(x[i], int(i % 3)) for i in range(64)]
    d = pssim.run(dict(scenario, data={"kind": "torch", "batch_size": 8}), data=(items, (x, torch.arange(64) % 3)))
    assert d.summary["updates"] == 60


def test_a_scenario_file_finds_its_module_beside_it_from_any_directory(tmp_path, monkeypatch):
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "net.py").write_text(
        "import torch\n"
        "def make_model():\n"
        "    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 3))\n"
        "def make_data():\n"
        "    x = torch.randn(60, 12, generator=torch.Generator().manual_seed(0))\n"
        "    return torch.utils.data.TensorDataset(x[:40], x[:40, :3].argmax(1)), (x[40:], x[40:, :3].argmax(1))\n")
    (tmp_path / "exp" / "s.yaml").write_text(
        "name: beside\nmodel: {kind: torch, module: net.py:make_model}\n"
        "data: {kind: torch, module: ./net.py:make_data, batch_size: 10}\n"
        "training: {stop: {updates: 4}}\ncluster: {workers: {count: 2}}\n")
    monkeypatch.chdir(tmp_path / "exp")
    here = pssim.run("s.yaml", output=str(tmp_path / "here"))
    monkeypatch.chdir("/")
    there = pssim.run(str(tmp_path / "exp" / "s.yaml"), output=str(tmp_path / "there"))
    resolved = yaml.safe_load((tmp_path / "there" / "scenario.yaml").read_text())
    assert resolved["model"]["module"] == str(tmp_path / "exp" / "net.py") + ":make_model"
    assert resolved["data"]["module"] == str(tmp_path / "exp" / "net.py") + ":make_data"
    # The saved resolved scenario re-runs from anywhere, to the same parameters.
    again = pssim.run(str(tmp_path / "there" / "scenario.yaml"), output=str(tmp_path / "again"))
    for name, value in here.parameters.items():
        assert np.array_equal(value, there.parameters[name])
        assert np.array_equal(value, again.parameters[name])


def test_torch_errors(cli, tmp_path):
    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(784, 10)
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            if self.training:
                raise ZeroDivisionError("a bug in the user's module")
            return self.fc(x.flatten(1))

    # A bug that shows while the simulation runs is the module's own exception.
    with pytest.raises(ZeroDivisionError, match="a bug in the user's module"):
        pssim.run(SCENARIO, overrides={"training.stop.updates": 2}, model=Broken())
    # A module that cannot be used is a fault of the inputs: InputError, caused by the
    # module's exception.
    with pytest.raises(pssim.InputError, match=r"output for one item of shape \[1, 1, 28, 28\] is \[1, 5\]") as e:
        pssim.run(SCENARIO, model=nn.Sequential(nn.Flatten(), nn.Linear(784, 5)))
    assert isinstance(e.value.__cause__, ValueError)
    with pytest.raises(pssim.InputError, match="running statistics"):
        pssim.run(SCENARIO, model=nn.Sequential(nn.BatchNorm2d(1), nn.Flatten(), nn.Linear(784, 10)))
    with pytest.raises(pssim.InputError, match="FileNotFoundError: model.module: no file /.*/nowhere.py") as e:
        pssim.run(SCENARIO, overrides={"model": {"kind": "torch", "module": "nowhere.py:make"}})
    assert isinstance(e.value.__cause__, FileNotFoundError)
    with pytest.raises(pssim.ScenarioError, match="not a module reference"):
        pssim.run(SCENARIO, overrides={"model": {"kind": "torch", "module": "net.py"}})
    # The pssim command runs no Python: it says where to run a torch scenario.
    bad = tmp_path / "torch.yaml"
    bad.write_text(SCENARIO.read_text().replace("model: {kind: mlp, hidden: [256]}",
                                                "model: {kind: torch, module: net.py:make}"))
    assert "kind: torch" in bad.read_text()
    status, _, err = cli("run", bad, "-o", tmp_path / "out")
    assert status == 2 and "python3 -m pssim run" in err


class Lm(nn.Module):
    """The built-in `lstm-lm` (embedding, one LSTM layer, linear decoder)."""

    def __init__(self, vocab, embed, hidden):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, tokens):  # [B, S] -> [B, S, V]
        return self.decoder(self.lstm(self.embedding(tokens))[0])


def test_language_model_as_torch_module():
    scenario = {"name": "lm", "model": {"kind": "lstm-lm", "embed_dim": 16, "hidden_size": 32, "math": False},
                "data": {"kind": "synthetic-text", "vocab": 50, "branching": 3, "seq_len": 10, "batch_size": 8},
                "training": {"stop": {"updates": 40}, "optimizer": {"kind": "adam", "lr": 0.01}},
                "cluster": {"workers": {"count": 2, "throughput": "1GFLOPS"}}}
    builtin = pssim.run(scenario)
    timing = pssim.run(dict(scenario, model={"kind": "torch", "math": False}), model=Lm(50, 16, 32))
    # Sizes and FLOPs (2 S (3 * 4H(E+H) + 3 V H) per sequence) are the built-in's: same times.
    assert timing.summary["sim_time_s"] == builtin.summary["sim_time_s"]
    assert timing.summary["bytes_sent"] == builtin.summary["bytes_sent"]
    torch.manual_seed(0)
    trained = pssim.run(dict(scenario, model={"kind": "torch"}), model=Lm(50, 16, 32))
    assert trained.summary["final_perplexity"] < 10  # 3 successors per token: a perplexity near 3 is reachable
    assert trained.evals["perplexity"].iloc[0] > 40  # against about 50 before training


BAD_MODULES = {  # what a module file holds -> what the error says
    "missing-function": ("import torch\n", "AttributeError: model.module: {file} has no function make"),
    "not-a-module": ("def make():\n    return 42\n", "TypeError: the model must be a torch.nn.Module, not int"),
    "batch-norm": ("from torch import nn\ndef make():\n    return nn.Sequential(nn.BatchNorm2d(1), nn.Flatten(), "
                   "nn.Linear(784, 10))\n", "running statistics"),
    "wrong-width": ("from torch import nn\ndef make():\n    return nn.Sequential(nn.Flatten(), nn.Linear(784, 5))\n",
                    "is [1, 5]"),
}


@pytest.mark.parametrize("case", sorted(BAD_MODULES) + ["missing-file"])
def test_torch_input_errors_are_input_errors_in_python_and_exit_2_from_the_command(case, tmp_path, py_cli):
    """A torch scenario whose module cannot be used: pssim.run raises InputError; python3 -m
    pssim run and validate exit 2 with the same message on stderr."""
    module = tmp_path / "net.py"
    if case != "missing-file":
        module.write_text(BAD_MODULES[case][0])
    expected = BAD_MODULES[case][1].format(file=module) if case != "missing-file" else \
        "FileNotFoundError: model.module: no file {}".format(module)
    scenario = tmp_path / "torch.yaml"
    scenario.write_text(SCENARIO.read_text().replace(
        "model: {kind: mlp, hidden: [256]}", "model: {{kind: torch, module: '{}:make'}}".format(module)))
    with pytest.raises(pssim.InputError) as e:
        pssim.run(scenario, overrides={"training.stop.updates": 1})
    assert expected in str(e.value)
    if case not in ("missing-file", "not-a-module"):
        return  # the command line's path is the same for every case; two keep the test quick
    for command in ("run", "validate"):
        status, _, err = py_cli(command, scenario)
        assert status == 2, err
        if command == "run":
            assert err.strip() == "pssim: error: " + str(e.value)
        assert expected in err


def test_the_module_command_validates_what_the_executable_cannot_build(cli, py_cli, tmp_path):
    module = tmp_path / "net.py"
    module.write_text("from torch import nn\ndef make():\n    return nn.Sequential(nn.Flatten(), nn.Linear(784, 10))\n")
    scenario = tmp_path / "torch.yaml"
    scenario.write_text(SCENARIO.read_text().replace(
        "model: {kind: mlp, hidden: [256]}", "model: {{kind: torch, module: '{}:make'}}".format(module)))
    status, out, _ = cli("validate", scenario)
    assert status == 0 and "keys only: /usr/bin/python3 -m pssim validate also builds its torch module" in out
    status, out, err = py_cli("validate", scenario)
    assert status == 0 and out == "{}: ok (quickstart)\n".format(scenario), err


def test_a_torch_scenario_without_pytorch_names_the_package(tmp_path, monkeypatch):
    module = tmp_path / "net.py"
    module.write_text("from torch import nn\ndef make():\n    return nn.Linear(784, 10)\n")
    scenario = tmp_path / "torch.yaml"
    scenario.write_text(SCENARIO.read_text().replace(
        "model: {kind: mlp, hidden: [256]}", "model: {{kind: torch, module: '{}:make'}}".format(module)))
    monkeypatch.setitem(sys.modules, "torch", None)  # as if python3-torch were not installed
    with pytest.raises(pssim.InputError, match="need PyTorch: install Debian's python3-torch"):
        pssim.run(scenario)
