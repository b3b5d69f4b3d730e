#include "dtype.hpp"

namespace cpu_backend {

const char *dtype_name(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return "float32";
    case BP_FLOAT64: return "float64";
    case BP_INT32: return "int32";
    case BP_INT64: return "int64";
    case BP_BOOL: return "bool";
    default: return "invalid";
  }
}

}  // namespace cpu_backend
