#include "dtype.hpp"

namespace bp_cuda {

int64_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32:
    case BP_INT32: return 4;
    case BP_FLOAT64:
    case BP_INT64: return 8;
    case BP_BOOL: return 1;
    default: return 0;
  }
}

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

}  // namespace bp_cuda
