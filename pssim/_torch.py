"""A PyTorch module and datasets as pssim's training math (model.kind torch, data.kind torch).

pssim simulates the cluster; the C++ side (sim/python/torch_network.hpp) asks a TorchModule
for each worker's gradient at exactly the parameters that worker holds, on its batch, and
for evaluations. The parameters are the module's trainable tensors in state_dict order,
one flat float32 vector (what the servers hold and their optimizers update); the loss is
the cross-entropy of the module's outputs (classes, or next tokens for a language model).

Threads and determinism: each job-pool thread of the simulation gets its own replica of
the module (copy.deepcopy), whose parameters are views of one flat tensor. PyTorch runs
with one intra-op thread during a simulation (restored after), so a gradient depends only
on its inputs; the forward pass, which draws dropout masks from PyTorch's global
generator, runs under a lock after torch.manual_seed(seed of this worker and iteration).
PyTorch's operators release the GIL while they compute, so with --threads N the gradients
of N workers overlap except for the Python between operators.
"""
import copy
import importlib.util
import math
import os
import threading

import numpy as np


def require_torch():
    """PyTorch, or an ImportError that says which package brings it (the main job's set-up
    does not install it)."""
    try:
        import torch
    except ImportError as e:
        raise ImportError("model.kind torch and data.kind torch need PyTorch: install Debian's python3-torch "
                          "(scripts/install-deps.sh --all)") from e
    return torch


def call_reference(reference, what):
    """Calls `file.py:function` (a function of no arguments) and returns its result."""
    path, _, function = reference.rpartition(":")
    if not os.path.isfile(path):
        # The scenario layer made the path absolute: beside the scenario file that names it,
        # or from the working directory (docs/scenario-reference.md, file paths).
        raise FileNotFoundError("{}: no file {}".format(what, path))
    name = "pssim_user_" + "".join(c if c.isalnum() else "_" for c in os.path.abspath(path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, function, None)):
        raise AttributeError("{}: {} has no function {}".format(what, path, function))
    return getattr(module, function)()


def materialize(dataset, which):
    """(inputs float32 [N, ...], labels int32 [N]) of a map-style dataset of (input, label)
    items, a TensorDataset, or a pair (inputs, labels) of tensors or arrays."""
    import torch
    if isinstance(dataset, (tuple, list)) and len(dataset) == 2 and hasattr(dataset[0], "shape"):
        inputs, labels = dataset
    elif isinstance(dataset, torch.utils.data.TensorDataset) and len(dataset.tensors) == 2:
        inputs, labels = dataset.tensors
    else:
        if not hasattr(dataset, "__len__") or not hasattr(dataset, "__getitem__"):
            raise TypeError("the {} dataset must be a map-style dataset of (input, label) items, or a pair "
                            "(inputs, labels); got {}".format(which, type(dataset).__name__))
        items = [dataset[i] for i in range(len(dataset))]
        if not items:
            raise ValueError("the {} dataset is empty".format(which))
        inputs = torch.stack([torch.as_tensor(x, dtype=torch.float32) for x, _ in items])
        labels = [int(y) for _, y in items]
    inputs = np.ascontiguousarray(torch.as_tensor(inputs).detach().cpu().numpy(), dtype=np.float32)
    labels = np.asarray(torch.as_tensor(labels).detach().cpu().numpy())
    if labels.ndim != 1 or labels.dtype.kind not in "iu":
        raise TypeError("the {} dataset's labels must be whole numbers, one per item (got {} of shape {})".format(
            which, labels.dtype, labels.shape))
    if len(inputs) != len(labels):
        raise ValueError("the {} dataset has {} inputs but {} labels".format(which, len(inputs), len(labels)))
    return inputs, labels.astype(np.int32)


class Provider:
    """Builds the math of one pssim.run or pssim.sweep call (sim/python/python_math.hpp).
    `model`, `data`: the module and the (train, test) datasets given from Python, or None."""

    def __init__(self, model=None, data=None):
        self.model = model
        self.data = data
        self.item_shape = None  # of the datasets loaded here (the C++ side sees them flattened)
        self._threads = None

    @staticmethod
    def _given(reference, obj, key, alternative):
        """What `key`.module refers to, else the object given from Python."""
        if reference:
            return call_reference(reference, key + ".module")
        if obj is None:
            raise ValueError("{}.kind torch needs {}.module (path/to/file.py:function) or {}".format(
                key, key, alternative))
        return obj

    def load_data(self, reference, seed):
        require_torch()
        data = self._given(reference, self.data, "data", "the datasets given to pssim.run(..., data=(train, test))")
        if not isinstance(data, (tuple, list)) or len(data) != 2:
            raise TypeError("data must be a pair (train, test) of datasets")
        train_x, train_y = materialize(data[0], "training")
        test_x, test_y = materialize(data[1], "test")
        if train_x.shape[1:] != test_x.shape[1:]:
            raise ValueError("the training items are {} but the test items {}".format(
                tuple(train_x.shape[1:]), tuple(test_x.shape[1:])))
        self.item_shape = tuple(train_x.shape[1:])
        return train_x, train_y, test_x, test_y

    def build(self, reference, init_seed, task, item_shape, outputs, seq_len):
        torch = require_torch()
        if self._threads is None:  # one intra-op thread while simulating (see the module's doc)
            self._threads = torch.get_num_threads()
            torch.set_num_threads(1)
        if reference:
            torch.manual_seed(init_seed)
        module = self._given(reference, self.model, "model", "the module given to pssim.run(..., model=...)")
        if not isinstance(module, torch.nn.Module):
            raise TypeError("the model must be a torch.nn.Module, not {}".format(type(module).__name__))
        shape = self.item_shape if self.item_shape is not None and task == "classification" else tuple(item_shape)
        return TorchModule(module, task, shape, outputs, seq_len)

    def close(self):
        """Puts PyTorch's thread count back."""
        if self._threads is not None:
            import torch
            torch.set_num_threads(self._threads)
            self._threads = None


class TorchModule:
    """The bridge of sim/python/torch_network.hpp around one module."""

    def __init__(self, module, task, item_shape, outputs, seq_len):
        import torch
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.track_running_stats:
                raise ValueError(
                    "{} keeps running statistics, which change in the forward pass and are not parameters that "
                    "servers hold: use track_running_stats=False, GroupNorm or LayerNorm".format(type(m).__name__))
        self.module = module
        self.task = task
        self.item_shape = tuple(int(d) for d in item_shape)
        self.seq_len = int(seq_len)
        trainable = {id(p) for p in module.parameters() if p.requires_grad}
        state = module.state_dict(keep_vars=True)
        self.names, seen = [], set()
        for name, tensor in state.items():
            if id(tensor) in trainable and id(tensor) not in seen:  # tied weights: their first name
                self.names.append(name)
                seen.add(id(tensor))
        if not self.names:
            raise ValueError("the module has no trainable parameters")
        self.tensors = [(name, tuple(state[name].shape)) for name in self.names]
        self.sizes = [state[name].numel() for name in self.names]
        self.size = sum(self.sizes)
        self._initial = torch.cat([state[n].detach().reshape(-1).float() for n in self.names]).numpy().copy()
        self._replicas = {}
        self._forward_lock = threading.Lock()
        self._check_outputs(outputs)

    def describe(self):
        return "torch {} ({:,} parameters)".format(type(self.module).__name__, self.size)

    def initial_parameters(self):
        return self._initial

    def _sample(self):
        import torch
        if self.task == "language_model":
            return torch.zeros((1, self.seq_len), dtype=torch.long)
        return torch.zeros((1,) + self.item_shape)

    def _check_outputs(self, outputs):
        import torch
        was_training = self.module.training
        self.module.eval()
        try:
            with torch.no_grad():
                out = self.module(self._sample())
        finally:
            self.module.train(was_training)
        if self.task == "language_model":
            expected = "[1, {}, {}] (batch, tokens, vocabulary)".format(self.seq_len, outputs)
            good = tuple(out.shape) == (1, self.seq_len, outputs)
        else:
            expected = "[1, C] with C >= {} (one output per class)".format(outputs)
            good = out.dim() == 2 and out.shape[0] == 1 and out.shape[1] >= outputs
        if not good:
            raise ValueError("the module's output for one item of shape {} is {}; expected {}".format(
                list(self._sample().shape), list(out.shape), expected))

    def _replica(self, workspace):
        replica = self._replicas.get(workspace)
        if replica is None:
            import torch
            module = copy.deepcopy(self.module)
            flat = torch.zeros(self.size)
            state = module.state_dict(keep_vars=True)
            params, offset = [], 0
            for name, size in zip(self.names, self.sizes):
                p = state[name]
                p.data = flat[offset:offset + size].view(p.shape)
                params.append((p, offset, size))
                offset += size
            replica = self._replicas[workspace] = (module, flat, params)
        return replica

    def _batch(self, inputs, labels, tokens):
        import torch
        if tokens is not None:
            t = torch.from_numpy(tokens).long()
            return t[:, :-1], t[:, 1:]
        x = torch.from_numpy(inputs).view((inputs.shape[0],) + self.item_shape)
        return x, torch.from_numpy(labels).long()

    @staticmethod
    def _loss(out, target, reduction="mean"):
        import torch.nn.functional as F
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1), reduction=reduction)

    def gradient(self, workspace, params, inputs, labels, tokens, seed, grad):
        import torch
        module, flat, tensors = self._replica(workspace)
        with torch.no_grad():
            flat.copy_(torch.from_numpy(params))
        module.train()
        for p, _, _ in tensors:
            p.grad = None
        x, target = self._batch(inputs, labels, tokens)
        with self._forward_lock:  # the global generator: seeded and drawn by one thread at a time
            torch.manual_seed(seed)
            out = module(x)
        loss = self._loss(out, target)
        loss.backward()
        g = torch.from_numpy(grad)
        with torch.no_grad():
            for p, offset, size in tensors:
                if p.grad is None:  # not used by this batch
                    g[offset:offset + size].zero_()
                else:
                    g[offset:offset + size].copy_(p.grad.reshape(-1))
        return float(loss)

    def evaluate(self, workspace, params, inputs, labels, tokens):
        import torch
        module, flat, _ = self._replica(workspace)
        module.eval()
        with torch.no_grad():
            flat.copy_(torch.from_numpy(params))
            x, target = self._batch(inputs, labels, tokens)
            out = module(x)
            loss = self._loss(out, target, reduction="sum")
            correct = (out.argmax(-1) == target).sum()
        return float(loss), int(correct), int(target.numel())

    def flops_per_sample(self, seq_len):
        """Forward + backward FLOPs of one sample by pssim's convention (docs/models.md):
        2 per multiply-add of every Linear, Conv and LSTM product forward; backward, the
        weight gradient of each and the input gradient of each but the first layer with
        parameters (its input is data). Other operations count nothing."""
        import torch
        from torch import nn
        layers = []  # [multiply-adds, first layer with parameters?], in execution order

        def hook(m, args, out):
            x = args[0]
            if isinstance(m, nn.Linear):
                macs = x.numel() // m.in_features * m.in_features * m.out_features
            elif isinstance(m, nn.modules.conv._ConvNd):
                macs = out.numel() * (m.in_channels // m.groups) * math.prod(m.kernel_size)
            elif isinstance(m, nn.LSTM):
                steps = x.shape[1] if m.batch_first else x.shape[0]
                dirs = 2 if m.bidirectional else 1
                h = m.hidden_size
                macs = sum(steps * dirs * 4 * h * ((m.input_size if layer == 0 else h * dirs) + h)
                           for layer in range(m.num_layers))
            else:  # other modules with parameters (embeddings, norms): no product counted
                macs = 0
            layers.append([macs, not layers])

        handles = [m.register_forward_hook(hook) for m in self.module.modules()
                   if isinstance(m, (nn.Linear, nn.modules.conv._ConvNd, nn.LSTM))
                   or (not list(m.children()) and any(True for _ in m.parameters(recurse=False)))]
        was_training = self.module.training
        self.module.eval()
        try:
            with torch.no_grad():
                self.module(self._sample())
        finally:
            self.module.train(was_training)
            for h in handles:
                h.remove()
        return float(sum(2 * macs * (2 if first else 3) for macs, first in layers))
