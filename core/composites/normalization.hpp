// Normalisations made of operators (normalization.cpp); see backplane.h's
// bp_var_axes, bp_group_norm and bp_batch_norm. Absent optional tensors are
// null pointers.
#pragma once

#include <cstdint>

#include "tensors/view.hpp"

namespace bp::core {

// The VAR operator over the axes with reduced[d] (a.rank entries), or, on a
// device whose plugin predates it (ABI 1.5 or older), the same two passes
// as the operators MEAN, SUB, MUL and SUM; recorded either way.
View variance(const View &a, const bool *reduced, bool keepdims, double correction);
View var_axes(const View &a, const int32_t *axes, int32_t count, bool keepdims, double correction);
View group_norm(const View &x, int64_t groups, const View *weight, const View *bias, double eps);
View batch_norm(const View &x, const View *running_mean, const View *running_var, const View *weight,
                const View *bias, bool training, double momentum, double eps);

}  // namespace bp::core
