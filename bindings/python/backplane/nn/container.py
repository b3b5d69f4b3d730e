"""Containers of modules: Sequential (applied one after the other) and
ModuleList (held in order, called by their owner)."""
import operator

from .module import Module


class _ModuleSequence(Module):
    """Modules registered under "0", "1", ...: what Sequential and ModuleList
    share (their parameters are the container's, in order)."""

    def append(self, module):
        if not isinstance(module, Module):
            raise TypeError("{} holds modules, not {}".format(type(self).__name__,
                                                              type(module).__name__))
        self.add_module(str(len(self._modules)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):
            return self._empty().extend(items[index])
        return items[operator.index(index)]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())


class Sequential(_ModuleSequence):
    """Sequential(m0, m1, ...) calls each module on the previous one's result.
    net[i] is the i-th module (net[0].weight), net[a:b] a Sequential of a
    slice; net.add(...) (Gluon) and net.append(m) (PyTorch) add at the end."""

    def __init__(self, *modules):
        super().__init__()
        self.extend(modules)

    def add(self, *blocks):
        self.extend(blocks)

    @staticmethod
    def _empty():
        return Sequential()

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


class ModuleList(_ModuleSequence):
    """ModuleList(modules=None), as torch's: modules held in order and
    registered, indexed (a slice is a ModuleList), iterated, appended and
    extended like a list. It has no forward: its owner decides how to call
    them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    @staticmethod
    def _empty():
        return ModuleList()
