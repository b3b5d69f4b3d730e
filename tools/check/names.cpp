#include "names.hpp"

#include "backplane/backplane.h"

#include <signal.h>
#include <string.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace bpcheck {

const std::vector<OpInfo> &all_ops() {
  static const std::vector<OpInfo> ops = {
      {BP_OP_ADD, "add", Family::binary},          {BP_OP_SUB, "sub", Family::binary},
      {BP_OP_MUL, "mul", Family::binary},          {BP_OP_DIV, "div", Family::binary},
      {BP_OP_POW, "pow", Family::binary},          {BP_OP_MAXIMUM, "maximum", Family::binary},
      {BP_OP_MINIMUM, "minimum", Family::binary},  {BP_OP_EQ, "eq", Family::compare},
      {BP_OP_NE, "ne", Family::compare},           {BP_OP_LT, "lt", Family::compare},
      {BP_OP_LE, "le", Family::compare},           {BP_OP_GT, "gt", Family::compare},
      {BP_OP_GE, "ge", Family::compare},           {BP_OP_WHERE, "where", Family::where},
      {BP_OP_NEG, "neg", Family::unary},           {BP_OP_ABS, "abs", Family::unary},
      {BP_OP_EXP, "exp", Family::unary},           {BP_OP_LOG, "log", Family::unary},
      {BP_OP_SQRT, "sqrt", Family::unary},         {BP_OP_TANH, "tanh", Family::unary},
      {BP_OP_SIGMOID, "sigmoid", Family::unary},   {BP_OP_RELU, "relu", Family::unary},
      {BP_OP_SUM, "sum", Family::reduce},          {BP_OP_MEAN, "mean", Family::reduce},
      {BP_OP_MAX, "max", Family::reduce},          {BP_OP_MIN, "min", Family::reduce},
      {BP_OP_ARGMAX, "argmax", Family::reduce},    {BP_OP_NORM, "norm", Family::reduce},
      {BP_OP_MATMUL, "matmul", Family::matmul},    {BP_OP_COPY, "copy", Family::copy},
      {BP_OP_FILL, "fill", Family::create},        {BP_OP_ARANGE, "arange", Family::create},
      {BP_OP_RANDOM_UNIFORM, "random_uniform", Family::create},
      {BP_OP_RANDOM_NORMAL, "random_normal", Family::create},
  };
  return ops;
}

const OpInfo *find_op(int32_t op) {
  for (const OpInfo &info : all_ops())
    if (info.op == op) return &info;
  return nullptr;
}

const char *op_name(int32_t op) {
  if (const OpInfo *info = find_op(op)) return info->name;
  static thread_local char text[32];
  std::snprintf(text, sizeof text, "op %d", int(op));
  return text;
}

// Known names come from the public C API the kit links anyway; unknown
// numbers (a plugin's garbage) are spelled out instead of "?".
const char *dtype_name(int32_t dtype) {
  const char *name = bp_dtype_name(dtype);
  if (std::strcmp(name, "?") != 0) return name;
  static thread_local char text[32];
  std::snprintf(text, sizeof text, "dtype %d", int(dtype));
  return text;
}

const char *status_name(int32_t status) {
  const char *name = bp_status_name(status);
  if (std::strcmp(name, "?") != 0) return name;
  static thread_local char text[32];
  std::snprintf(text, sizeof text, "status %d", int(status));
  return text;
}

std::string signal_name(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

const std::vector<int32_t> &all_dtypes() {
  static const std::vector<int32_t> dtypes = {BP_FLOAT32, BP_FLOAT64, BP_INT32, BP_INT64, BP_BOOL};
  return dtypes;
}

int64_t dtype_size(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return 4;
    case BP_FLOAT64: return 8;
    case BP_INT32: return 4;
    case BP_INT64: return 8;
    case BP_BOOL: return 1;
    default: return 0;
  }
}

bool is_float(int32_t dtype) { return dtype == BP_FLOAT32 || dtype == BP_FLOAT64; }
bool is_integer(int32_t dtype) { return dtype == BP_INT32 || dtype == BP_INT64; }

std::string combo_name(int32_t op, int32_t dtype, int32_t out_dtype) {
  std::string text = std::string(op_name(op)) + " " + dtype_name(dtype);
  if (out_dtype != dtype) text += std::string(" -> ") + dtype_name(out_dtype);
  return text;
}

std::string shape_text(int32_t rank, const int64_t *shape) {
  std::string text = "[";
  for (int32_t d = 0; d < rank; ++d) {
    if (d) text += ", ";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

std::string one_line(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\r') continue;
    if (c == '\n') {
      if (i + 1 < text.size()) out += " / ";
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = '?';
    out += c;
  }
  return out;
}

std::string format(const char *fmt, ...) {
  char buffer[2048];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

}  // namespace bpcheck
