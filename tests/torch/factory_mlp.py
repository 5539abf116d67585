"""factory_mlp.py: a user's own model for `checkpoint --factory` (tests/torch/
factory-check.py): a tiny MLP of nn.Sequential blocks, its batch, SGD with
momentum and a cross-entropy loss; and factories that go wrong."""

import torch
from torch import nn


def make():
    # activations (2048 x 128 floats: 1 MiB each) well above the state
    model = nn.Sequential(
        nn.Linear(64, 128), nn.ReLU(),
        nn.Sequential(nn.Linear(128, 128), nn.ReLU()),
        nn.Sequential(nn.Linear(128, 128), nn.ReLU()),
        nn.Sequential(nn.Linear(128, 128), nn.ReLU()),
        nn.Linear(128, 10))
    x, y = torch.randn(2048, 64), torch.randint(10, (2048,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, (x,), opt, lambda out: nn.functional.cross_entropy(out, y)


def make_plain():
    """(model, inputs): no optimizer, the output's sum as the loss."""
    return (nn.Sequential(nn.Linear(64, 128), nn.Tanh(), nn.Linear(128, 128), nn.Tanh(),
                          nn.Linear(128, 8)), torch.randn(1024, 64))


def make_wrong():
    return "a model"


def make_raises():
    raise ValueError("no weights here")
