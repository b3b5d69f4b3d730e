"""Sequential: modules applied one after the other."""
import operator

from .module import Module


class Sequential(Module):
    """Sequential(m0, m1, ...) calls each module on the previous one's result.
    net[i] is the i-th module (net[0].weight), net[a:b] a Sequential of a
    slice; net.add(...) (Gluon) and net.append(m) (PyTorch) add at the end."""

    def __init__(self, *modules):
        super().__init__()
        self.add(*modules)

    def add(self, *blocks):
        for m in blocks:
            self.append(m)

    def append(self, module):
        if not isinstance(module, Module):
            raise TypeError("Sequential holds modules, not {}".format(type(module).__name__))
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return Sequential(*items[index])
        return items[operator.index(index)]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x
