"""The linear regression from scratch of Dive into Deep Learning (3.2), as the
book writes it for PyTorch, run with `import backplane as torch`: the sgd
step updates the parameters in place (param -= ...) under no_grad and zeroes
their gradients with param.grad.zero_()."""
import random

import backplane as torch


def synthetic_data(w, b, num_examples):
    """Generate y = Xw + b + noise."""
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    # The examples are read at random, in no particular order
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    """The linear regression model."""
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    """Squared loss."""
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    """Minibatch stochastic gradient descent."""
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


def test_linear_regression_from_scratch_trains(dev):
    random.seed(0)
    torch.manual_seed(0)
    with torch.default_device(dev):
        true_w = torch.tensor([2, -3.4])
        true_b = 4.2
        features, labels = synthetic_data(true_w, true_b, 1000)

        batch_size = 10
        w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
        b = torch.zeros(1, requires_grad=True)
        params = [w, b]

        lr = 0.03
        num_epochs = 3
        net = linreg
        loss = squared_loss
        losses = []
        for epoch in range(num_epochs):
            for X, y in data_iter(batch_size, features, labels):
                l = loss(net(X, w, b), y)  # noqa: E741  (the book's name)
                # Compute gradient on `l` with respect to [`w`, `b`]
                l.sum().backward()
                sgd([w, b], lr, batch_size)  # Update parameters using their gradient
            with torch.no_grad():
                train_l = loss(net(features, w, b), labels)
                losses.append(float(train_l.mean()))
        w_error = true_w - w.reshape(true_w.shape)
        b_error = true_b - b

    assert params[0] is w and params[1] is b and w.is_leaf and w.requires_grad
    assert w.device == dev and b.device == dev
    assert losses[0] > losses[-1] and losses[-1] < 1e-3  # the book prints ~5e-05
    assert max(abs(e) for e in w_error.tolist()) < 0.01
    assert abs(b_error.item()) < 0.01
