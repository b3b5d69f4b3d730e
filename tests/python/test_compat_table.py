"""The PyTorch compatibility table of bindings/python/README.md is what
bindings/python/compat/compat_table.py generates from the package: a name
added to or removed from backplane without regenerating it fails here."""
import importlib.util
import json
import os

from conftest import REPO

SCRIPT = os.path.join(REPO, "bindings", "python", "compat", "compat_table.py")
spec = importlib.util.spec_from_file_location("compat_table", SCRIPT)
compat_table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(compat_table)


def test_the_readme_table_is_generated_from_the_package():
    with open(compat_table.README) as f:
        current = compat_table.readme_table(f.read())
    assert current is not None, "README.md lacks the compat-table markers"
    assert current == compat_table.table(), (
        "bindings/python/README.md's compatibility table is stale: run "
        "PYTHONPATH=build/python python3 bindings/python/compat/compat_table.py")


def test_the_table_follows_the_package():
    # A name the package lacks shows as missing, one it has as present.
    names = {"torch": ["cat", "no_such_function_in_backplane"]}
    row = compat_table.table(names).splitlines()[2]
    assert row == "| `torch` | 1 of 2: `cat` | `no_such_function_in_backplane` |"


def test_every_module_of_the_name_list_is_in_the_table():
    with open(compat_table.NAMES) as f:
        modules = [m for m in json.load(f) if m.startswith("torch")]
    rows = compat_table.table().splitlines()[2:]
    assert [r.split("`")[1] for r in rows] == modules
