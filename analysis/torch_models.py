"""PyTorch twins of pssim's networks, built from the manifest pssim writes (model.json).

Parameter names, shapes and order equal pssim's ParamLayout, so
``module.load_state_dict(tensors, strict=True)`` is itself a check of the layout.
Used by analysis/check_against_torch.py and bench/torch_bench.py (run both with
/usr/bin/python3 and Debian's python3-torch).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskDropout(nn.Module):
    """Dropout with a given scaled keep-mask [B, features] (pssim's exported mask, for
    dropout2d a channel's value repeated over its pixels), so PyTorch sees exactly the
    units pssim dropped. Without a mask: ordinary nn.Dropout, or nn.Dropout2d (whole
    channels) when `channels`."""

    def __init__(self, p, channels=False):
        super().__init__()
        self.p = p
        self.channels = channels
        self.mask = None

    def forward(self, x):
        if self.mask is None:
            return (F.dropout2d if self.channels else F.dropout)(x, self.p, self.training)
        return x * self.mask.reshape(x.shape)


class NearTiePool(nn.Module):
    """nn.MaxPool2d (first maximum wins) that can take the runner-up in windows whose two
    largest values are within `rel` of each other: there float32 rounding may rank them the
    other way, and the gradient then goes to the other pixel (an equally valid
    subgradient). `near_ties()` counts such windows in the last forward; `flip` is a bit
    mask over them, in the order near_ties() counts them."""

    def __init__(self, kernel, stride, rel=1e-6):
        super().__init__()
        self.kernel, self.stride, self.rel = kernel, stride, rel
        self.flip = 0
        self.count = 0

    def near_ties(self):
        return self.count

    def forward(self, x):
        b, c, h, w = x.shape
        cols = F.unfold(x.reshape(b * c, 1, h, w), self.kernel, stride=self.stride)  # [B*C, k*k, L]
        top, order = cols.sort(dim=1, descending=True, stable=True)
        near = ((top[:, 0] - top[:, 1]).abs() <= self.rel * top[:, 0].abs()) & (top[:, 0] != top[:, 1])
        choice = order[:, 0].clone()
        positions = near.nonzero().tolist()
        self.count = len(positions)
        for j, (r, l) in enumerate(positions):
            if (self.flip >> j) & 1:
                choice[r, l] = order[r, 1, l]
        out = cols.gather(1, choice.unsqueeze(1)).squeeze(1)
        return out.reshape(b, c, (h - self.kernel) // self.stride + 1, -1)


class Sequential(nn.Module):
    """A pssim SequentialNet: layers in order, then log-softmax (NLL is the loss)."""

    def __init__(self, manifest, near_tie_pools=False):
        super().__init__()
        self.steps = []
        self.dropouts = {}
        self.pools = []  # the NearTiePool steps, with near_tie_pools
        for i, layer in enumerate(manifest["layers"]):
            kind = layer["kind"]
            if kind == "conv2d":
                m = nn.Conv2d(layer["in"][0], layer["out"][0], layer["kernel"],
                              stride=layer["stride"], padding=layer["padding"])
                self.add_module(layer["name"], m)
            elif kind == "linear":
                fan_in = layer["in"][0] * layer["in"][1] * layer["in"][2]
                m = nn.Linear(fan_in, layer["out"][0])
                self.add_module(layer["name"], m)
                self.steps.append(lambda x: x.flatten(1))
            elif kind == "max_pool2d":
                if near_tie_pools:
                    m = NearTiePool(layer["kernel"], layer["stride"])
                    self.pools.append(m)
                else:
                    m = nn.MaxPool2d(layer["kernel"], layer["stride"])
            elif kind == "relu":
                m = nn.ReLU()
            elif kind in ("dropout", "dropout2d"):
                m = MaskDropout(layer["p"], channels=kind == "dropout2d")
                self.dropouts[f"layers.{i}"] = m
            elif kind == "flatten":
                m = nn.Flatten()
            else:
                raise ValueError(f"unknown layer kind {kind}")
            if kind not in ("conv2d", "linear"):
                # Registered so that train() / eval() reach it (dropout must switch off);
                # parameter-free, so state_dict is unchanged.
                self.add_module(f"step{i}", m)
            self.steps.append(m)

    def forward(self, x):
        for step in self.steps:
            x = step(x)
        return F.log_softmax(x, dim=1)


class LstmLM(nn.Module):
    """pssim's lstm-lm: embedding, nn.LSTM (zero initial state), linear decoder; with
    dropout as PyTorch's word-language-model example: on the embedded inputs, between the
    LSTM layers (nn.LSTM(dropout=p)) and on the output."""

    def __init__(self, manifest):
        super().__init__()
        v, e, h, layers = (manifest[k] for k in ("vocab_size", "embed_dim", "hidden_size", "num_layers"))
        p = manifest.get("dropout", 0.0)
        self.drop = nn.Dropout(p)
        self.embedding = nn.Embedding(v, e)
        self.lstm = nn.LSTM(e, h, layers, dropout=p if layers > 1 else 0.0)
        self.decoder = nn.Linear(h, v)

    def forward(self, tokens):
        """tokens [B, S+1] int64 -> (log-probabilities [S*B, V], targets [S*B]), time-major."""
        inputs = tokens[:, :-1].t()            # [S, B]
        targets = tokens[:, 1:].t().reshape(-1)
        out, _ = self.lstm(self.drop(self.embedding(inputs)))  # [S, B, H]
        out = self.drop(out)
        logits = self.decoder(out.reshape(-1, out.shape[-1]))
        return F.log_softmax(logits, dim=1), targets


def build(manifest, near_tie_pools=False):
    if manifest["kind"] == "sequential":
        return Sequential(manifest, near_tie_pools)
    if manifest["kind"] == "lstm_lm":
        return LstmLM(manifest)
    raise ValueError(f"unknown model kind {manifest['kind']}")


def loss_of(module, manifest, batch):
    """Mean NLL of a batch dict {'inputs', 'labels'} or {'tokens'}."""
    if manifest["kind"] == "lstm_lm":
        logp, targets = module(batch["tokens"])
        return F.nll_loss(logp, targets)
    return F.nll_loss(module(batch["inputs"]), batch["labels"])
