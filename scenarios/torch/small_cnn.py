"""A PyTorch module and datasets as a scenario's math (scenarios/torch/small-cnn.yaml): the
functions a scenario names with `module: file.py:function`, called with no arguments.
Run it with `/usr/bin/python3 -m pssim run scenarios/torch/small-cnn.yaml`."""
import torch
from torch import nn


class SmallCnn(nn.Module):
    """One convolution and one linear layer for 28 x 28 grey images, 10 classes."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, kernel_size=5, stride=2)   # [B, 1, 28, 28] -> [B, 8, 12, 12]
        self.fc = nn.Linear(8 * 12 * 12, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def make_model():
    return SmallCnn()


def make_data():
    """(train, test): 10 classes of 28 x 28 images, each class a bright square at its own
    place on noise (to stand in for a dataset of one's own; pssim never downloads one)."""
    generator = torch.Generator().manual_seed(0)
    labels = torch.randint(0, 10, (2400,), generator=generator)
    images = 0.3 * torch.randn(2400, 1, 28, 28, generator=generator)
    for i, label in enumerate(labels.tolist()):
        row, col = 4 + 8 * (label // 4), 2 + 6 * (label % 4)
        images[i, 0, row:row + 4, col:col + 4] += 1.0
    return (images[:2000], labels[:2000]), (images[2000:], labels[2000:])
