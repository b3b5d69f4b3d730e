"""scikit-learn's handwritten digits (8x8 images, shipped inside scikit-learn:
nothing is downloaded) as the examples train on them: a fixed split, pixels
scaled to [0, 1], and the same shuffled batches in every run."""
import numpy as np

import backplane as bp

CLASSES = 10


def load(device, images=False, test_fraction=0.2, seed=0):
    """(X_train, y_train, X_test, y_test) on device: float32 pixels, as rows
    of 64 features or, with images=True, as [N, 1, 8, 8] images; int64
    labels; split by a fixed shuffle."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)
    if images:
        X = X.reshape(-1, 1, 8, 8)
    y = digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(X))
    test, train = np.split(order, [int(len(X) * test_fraction)])
    return tuple(bp.tensor(a, device=device) for a in (X[train], y[train], X[test], y[test]))


def epoch_batches(n, batch_size, epoch, seed=0):
    """The index arrays of one epoch's batches, a shuffle fixed by (seed,
    epoch): the same batches in every run (and in PyTorch's, in the tests)."""
    order = np.random.RandomState(seed + 1 + epoch).permutation(n)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def accuracy(net, X, y, batch_size=512):
    """The fraction of rows of X whose largest logit is their label, with the
    network in evaluation mode (batch norm's running statistics, no dropout)."""
    was_training = net.training
    net.eval()
    correct = 0
    with bp.no_grad():
        for i in range(0, len(X), batch_size):
            correct += (net(X[i:i + batch_size]).argmax(axis=1) == y[i:i + batch_size]).sum().item()
    net.train(was_training)
    return correct / len(X)


def train(make_model, device, epochs, batch_size, lr=0.01, seed=0, images=False, cosine=False, log=print):
    """Trains make_model() from bp.manual_seed(seed) with Adam on device over
    the fixed batches, the network in training mode, with cosine the
    learning rate annealed from lr to 0 over all steps (stepped after each
    batch); returns (net, mean loss of each epoch, test accuracy). Everything stays on the device: the data,
    the parameters, both passes and the optimiser's steps; only each epoch's
    loss (summed on the device) is read back."""
    from backplane import nn, optim
    X, y, X_test, y_test = load(device, images=images)
    bp.manual_seed(seed)
    net = make_model().to(device)
    loss_fn = nn.CrossEntropyLoss()
    opt = optim.Adam(net.parameters(), lr=lr)
    steps_per_epoch = len(epoch_batches(len(X), batch_size, 0, seed))
    schedule = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch) if cosine else None
    epoch_losses = []
    for epoch in range(epochs):
        net.train()
        batches = epoch_batches(len(X), batch_size, epoch, seed)
        total = bp.zeros((), device=device)
        for idx in batches:
            idx = bp.tensor(idx, device=device)
            loss = loss_fn(net(X[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if schedule is not None:
                schedule.step()
            total = total + loss.detach()
        epoch_losses.append(total.item() / len(batches))
        log("epoch {:2d}  loss {:.4f}".format(epoch + 1, epoch_losses[-1]))
    return net, epoch_losses, accuracy(net, X_test, y_test)


def main(doc, what, train, epochs, batch_size, lr=0.01, options=None):
    """The command line of a digits example: --device, --epochs,
    --batch-size, --lr (defaults as given) and the example's own switches
    (options maps each --flag to (keyword, help): given, train gets
    keyword=False), then train(device, epochs, batch_size, lr, ...), the
    device of the trained parameters and the test accuracy printed."""
    import argparse
    import time
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu (default), opencl:0, cuda:0, ...")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch-size", type=int, default=batch_size)
    parser.add_argument("--lr", type=float, default=lr)
    for flag, (keyword, help) in (options or {}).items():
        parser.add_argument(flag, dest=keyword, action="store_false", help=help)
    args = parser.parse_args()
    device = bp.device(args.device)
    print("training {} on the digits on {}".format(what, device))
    t0 = time.perf_counter()
    switches = {keyword: getattr(args, keyword) for keyword, _ in (options or {}).values()}
    net, _, test_accuracy = train(device, args.epochs, args.batch_size, args.lr, **switches)
    print("parameters on {}; test accuracy {:.1%} ({:.1f} s)".format(
        next(net.parameters()).device, test_accuracy, time.perf_counter() - t0))
