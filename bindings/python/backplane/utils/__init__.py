"""backplane.utils: data loading (backplane.utils.data), as torch.utils."""
from . import data

__all__ = ["data"]
