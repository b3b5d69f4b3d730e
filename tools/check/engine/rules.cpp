#include "rules.hpp"

#include "pool_cases.hpp"

#include <atomic>
#include <cmath>

#include "pool_cases.hpp"
#include "text.hpp"
#include "values.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// Every rule of plugin.h whose checks depend on the plugin's ABI version,
// with the minor that wrote it (abi/CHANGELOG.md says the same).
const std::vector<RuleSince> kRules = {
    {Rule::float_to_int_saturates, 1,
     "COPY from a float to an integer saturates and gives 0 for NaN (1.0: out-of-range values unspecified; "
     "any value is accepted there)"},
    {Rule::dtypes_1_4, 4, "the dtypes float16, bfloat16, int8, uint8 and int16"},
    {Rule::max_min_signed_zero, kNever,
     "MAXIMUM, MINIMUM, MAX, MIN and MAX_POOL of +0 and -0 give either zero (plugin.h leaves which one open)"},
};

std::atomic<uint32_t> g_minor{BP_PLUGIN_ABI_MINOR};

// Whether a float converts to the integer dtype without leaving its range
// (truncated toward zero); NaN never does.
bool fits_integer(double x, int32_t dtype) {
  if (std::isnan(x)) return false;
  const double t = std::trunc(x);
  const int bits = 8 * int(bp_vocab_dtype_size(dtype));
  if (bp_vocab_dtype_kind(dtype) == BP_DTYPE_KIND_UNSIGNED_INT) return t >= 0 && t < std::ldexp(1.0, bits);
  return t >= -std::ldexp(1.0, bits - 1) && t < std::ldexp(1.0, bits - 1);
}

bool is_zero(double x) { return x == 0; }

// Whether a MAXIMUM or MINIMUM element's operands are +0 and -0.
bool signed_zeros(double a, double b) { return is_zero(a) && is_zero(b) && std::signbit(a) != std::signbit(b); }

std::vector<Leeway> copy_leeway(const Case &c) {
  const ViewDesc &in = c.inputs[0], &out = c.output;
  std::vector<Leeway> leeway(size_t(numel(out)), Leeway::none);
  const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
  bool any = false;
  for_each_index(out, [&](const int64_t *idx, int64_t pos) {
    if (!fits_integer(load_double(in.dtype, s.data() + byte_at(in, idx)), out.dtype)) {
      leeway[size_t(pos)] = Leeway::any_value;
      any = true;
    }
  });
  if (!any) leeway.clear();
  return leeway;
}

std::vector<Leeway> binary_zero_leeway(const Case &c) {
  const ViewDesc &out = c.output;
  std::vector<Leeway> leeway(size_t(numel(out)), Leeway::none);
  const int32_t mode = c.attrs.scalar_mode;
  bool any = false;
  for_each_index(out, [&](const int64_t *idx, int64_t pos) {
    auto operand = [&](size_t i) {
      const ViewDesc &v = c.inputs[i];
      return load_double(v.dtype, c.storages[size_t(v.storage)].data() + byte_at(v, idx));
    };
    const double a = operand(0), b = mode != BP_SCALAR_NONE ? c.attrs.scalar : operand(1);
    if (signed_zeros(a, b)) {
      leeway[size_t(pos)] = Leeway::either_zero;
      any = true;
    }
  });
  if (!any) leeway.clear();
  return leeway;
}

// A MAX or MIN reduction: open where the reduced set holds both zeros (the
// result, when it is a zero, may be either).
std::vector<Leeway> reduce_zero_leeway(const Case &c) {
  const ViewDesc &in = c.inputs[0], &out = c.output;
  std::vector<uint8_t> seen(size_t(numel(out)), 0);  // bit 0: +0 seen, bit 1: -0 seen
  const std::vector<uint8_t> &s = c.storages[size_t(in.storage)];
  for_each_index(in, [&](const int64_t *idx, int64_t) {
    const double x = load_double(in.dtype, s.data() + byte_at(in, idx));
    if (!is_zero(x)) return;
    int64_t oidx[BP_MAX_RANK] = {0};
    for (int d = 0; d < in.rank; ++d) oidx[d] = out.shape[d] == 1 ? 0 : idx[d];
    seen[size_t(c_position(out, oidx))] |= std::signbit(x) ? 2 : 1;
  });
  std::vector<Leeway> leeway(seen.size(), Leeway::none);
  bool any = false;
  for (size_t i = 0; i < seen.size(); ++i)
    if (seen[i] == 3) {
      leeway[i] = Leeway::either_zero;
      any = true;
    }
  if (!any) leeway.clear();
  return leeway;
}

}  // namespace

const std::vector<RuleSince> &rule_table() { return kRules; }

void hold_to_abi_minor(uint32_t minor) { g_minor.store(minor); }
uint32_t held_abi_minor() { return g_minor.load(); }

bool rule_applies(Rule rule, uint32_t minor) {
  for (const RuleSince &r : kRules)
    if (r.rule == rule) return r.since_minor != kNever && minor >= uint32_t(r.since_minor);
  return true;
}
bool rule_applies(Rule rule) { return rule_applies(rule, held_abi_minor()); }

std::vector<std::string> rules_not_applied() {
  std::vector<std::string> notes;
  const uint32_t minor = held_abi_minor();
  for (const RuleSince &r : kRules)
    if (r.since_minor != kNever && minor < uint32_t(r.since_minor))
      notes.push_back(format("ABI %d.%u plugin: not held to a rule since %d.%d: %s", BP_PLUGIN_ABI_MAJOR, minor,
                             BP_PLUGIN_ABI_MAJOR, r.since_minor, r.what));
  return notes;
}

std::vector<Leeway> output_leeway(const Case &c) {
  const int32_t out = c.output.dtype;
  if (c.op == BP_OP_COPY && c.inputs.size() == 1 && is_float(c.inputs[0].dtype) && is_integer(out) &&
      !rule_applies(Rule::float_to_int_saturates))
    return copy_leeway(c);
  if (!is_float(out) || rule_applies(Rule::max_min_signed_zero)) return {};
  if ((c.op == BP_OP_MAXIMUM || c.op == BP_OP_MINIMUM) && !c.inputs.empty() &&
      (c.inputs.size() == 2 || c.attrs.scalar_mode != BP_SCALAR_NONE))
    return binary_zero_leeway(c);
  if ((c.op == BP_OP_MAX || c.op == BP_OP_MIN) && c.inputs.size() == 1) return reduce_zero_leeway(c);
  if (c.op == BP_OP_MAX_POOL && c.window && c.inputs.size() == 1) return pool_zero_leeway(c);
  return {};
}

}  // namespace bpcheck
