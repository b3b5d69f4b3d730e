// Names of the ABI's numbers (ops, dtypes, statuses, signals) and small
// string helpers, independent of libbackplane so that they work on any
// plugin binary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backplane/plugin.h"

namespace bpcheck {

// How an operator uses its inputs (plugin.h, "Operator semantics").
enum class Family { unknown, binary, compare, where, unary, reduce, matmul, copy, create };

struct OpInfo {
  int32_t op;
  const char *name;
  Family family;
};

// Every operator of ABI 1.0, in enum order.
const std::vector<OpInfo> &all_ops();
const OpInfo *find_op(int32_t op);

const char *op_name(int32_t op);        // "add", or "op 99"
const char *dtype_name(int32_t dtype);  // "float32", or "dtype 99"
const char *status_name(int32_t status);  // "BP_ERR_UNSUPPORTED", or "status 99"
std::string signal_name(int sig);       // "SIGSEGV"

// The five element types of ABI 1.0.
const std::vector<int32_t> &all_dtypes();
int64_t dtype_size(int32_t dtype);  // 0 when invalid
bool is_float(int32_t dtype);
bool is_integer(int32_t dtype);  // int32, int64 (not bool)

// "add float32", "copy int32 -> float64", "sum int32 -> int64".
std::string combo_name(int32_t op, int32_t dtype, int32_t out_dtype);

std::string shape_text(int32_t rank, const int64_t *shape);  // "[2, 3]"
std::string one_line(std::string text);                       // newlines -> " / "
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace bpcheck
