// Constant names of statuses, dtypes and operators, used in messages.
#pragma once

#include "backplane/types.h"

namespace bp::core {

const char *status_name(int32_t status);
const char *dtype_name(int32_t dtype);  // "float32", "?" when unknown
const char *op_name(int32_t op);        // "add", "?" when unknown
int32_t dtype_size(int32_t dtype);      // bytes per element, 0 when unknown
bool valid_dtype(int32_t dtype);

}  // namespace bp::core
