"""The Python tables come from the vocabulary the extension exports
(backplane/vocabulary.h as _C.statuses, _C.dtypes, _C.op_families, _C.ops) and
agree with the loaded library's own names."""
import numpy as np
import pytest

import backplane as bp
from backplane import _C, _dtype, _errors, _tensor
from conftest import require


def test_exported_rows_have_their_columns():
    assert (6, "BP_ERR_SHAPE") == _C.statuses[6][:2] and _C.statuses[0][1] == "BP_OK"
    assert all(isinstance(doc, str) and doc for _, _, doc in _C.statuses)
    assert (1, "float32", 4, _C.DTYPE_KIND_FLOAT) in _C.dtypes
    assert (1, "binary", 2) in _C.op_families
    assert (1, "add", "binary") in _C.ops
    families = {name for _, name, _ in _C.op_families}
    assert all(family in families for _, _, family in _C.ops)


def test_names_agree_with_the_loaded_library():
    for code, status, _ in _C.statuses:
        assert _C.status_name(code) == status
    for code, name, size, _ in _C.dtypes:
        assert _C.dtype_name(code) == name
    for code, name, _ in _C.ops:
        assert _C.op_name(code) == name


def test_one_exception_class_per_error_status():
    errors = [(code, status) for code, status, _ in _C.statuses if status != "BP_OK"]
    assert len(errors) >= 13  # 1.1; the list only grows
    for code, status in errors:
        cls = _errors.error_class(code)
        assert cls is not bp.BackplaneError and issubclass(cls, bp.BackplaneError)
        assert getattr(bp, cls.__name__) is cls and cls.__name__ in bp.__all__
        assert cls.__module__ == "backplane" and cls.__doc__.startswith(status + ": ")
        e = cls("boom")
        assert (e.status, e.code, e.message) == (status, code, "boom")
    assert _errors.error_class(6) is bp.ShapeError
    assert _errors.error_class(13) is bp.InternalError


def test_an_unknown_status_is_a_backplane_error():
    e = _errors.make_error(999, "from a newer library", "add", 1, (), None)
    assert type(e) is bp.BackplaneError
    assert e.code == 999 and e.op == "add" and e.input == 1
    assert isinstance(e.status, str) and e.status  # the library's name for it, or BP_ERR_999
    assert bp.BackplaneError("x").status == "" and bp.BackplaneError("x").code == 0


def test_dtype_error_of_as_dtype_carries_its_status():
    with pytest.raises(bp.DtypeError) as e:
        bp.as_dtype("complex64")
    assert e.value.status == "BP_ERR_DTYPE" and e.value.code == _C.statuses[7][0] == 7
    assert ("float32, float64, int32, int64, bool, float16, bfloat16, int8, uint8 and int16"
            in str(e.value))


def test_one_dtype_per_entry():
    assert [d.name for d in _dtype.ALL] == [name for _, name, _, _ in _C.dtypes]
    for code, name, size, _ in _C.dtypes:
        d = _dtype.BY_CODE[code]
        assert (d.name, d.code, d.itemsize) == (name, code, size)
        assert getattr(bp, name) is d and bp.as_dtype(name) is d
        if d.has_numpy:
            assert d.numpy.itemsize == size
    assert bp.bool is bp.bool_ and "bool_" in bp.__all__
    assert [bp.as_dtype(s) for s in ("f4", "f8", "i4", "i8", "b1", "f2", "i1", "u1", "i2")] == [
        bp.float32, bp.float64, bp.int32, bp.int64, bp.bool_, bp.float16, bp.int8, bp.uint8,
        bp.int16]
    assert [d.kind for d in _dtype.ALL] == ["f", "f", "i", "i", "b", "f", "f", "i", "u", "i"]
    assert [d.is_floating_point for d in (bp.float16, bp.bfloat16, bp.int8)] == [True, True, False]


def test_operator_functions_use_the_exported_numbers():
    assert _tensor.OP == {name: code for code, name, _ in _C.ops}
    x = bp.arange(4, dtype="float32", device=require("reference:0"))
    np.testing.assert_array_equal(bp.subtract(x, 1).numpy(), np.arange(4) - 1)
    assert bp.greater(x, 1.5).dtype == bp.bool_
    assert x.argmax().item() == 3 and bp.sum(x).item() == 6


def test_constants():
    assert _C.AXIS_ALL == 2**31 - 1 and _C.MAX_RANK == 8
    assert (_C.DEVICE_CPU, _C.DEVICE_GPU, _C.DEVICE_ACCELERATOR) == (1, 2, 3)
    assert require("reference:0").kind == "cpu"
