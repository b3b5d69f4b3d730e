/*
 * bfloat16.h — host conversion to bfloat16 for backplane._C (bfloat16.c).
 * NumPy has float16 but no bfloat16, so bp.tensor(data, dtype=bp.bfloat16)
 * rounds on the host here, with backplane/half.h's own routine.
 */
#ifndef BP_PYTHON_BFLOAT16_H
#define BP_PYTHON_BFLOAT16_H

#include "extension.h"

/* _C.bf16_from_f64(src, dst): src a C-contiguous buffer of float64 values,
 * dst a writable C-contiguous buffer of as many 2-byte elements; each value
 * is rounded once, to nearest even, to bfloat16 bits (bp_bf16_from_f64). */
PyObject *bf16_from_f64(PyObject *mod, PyObject *args);

#endif /* BP_PYTHON_BFLOAT16_H */
