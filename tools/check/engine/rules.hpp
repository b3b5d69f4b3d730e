// The rules of plugin.h that the kit holds a plugin to by the ABI version it
// reports: a rule applies from the minor version that wrote it, and where
// plugin.h leaves a result open the kit accepts every allowed answer. The
// table of rules and their since-versions is rules.cpp's kRules, the one home
// of that knowledge.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"

namespace bpcheck {

enum class Rule {
  // COPY from a float dtype to an integer one saturates, NaN gives 0 (1.1;
  // 1.0 left out-of-range values unspecified).
  float_to_int_saturates,
  // float16, bfloat16, int8, uint8 and int16 exist (1.4): an older plugin
  // is never handed them by the core.
  dtypes_1_4,
  // MAXIMUM/MINIMUM (and the MAX/MIN reductions, MAX_POOL) of +0 and -0 give one of
  // the two zeros: plugin.h leaves which one open, so no version has a rule.
  max_min_signed_zero,
};

struct RuleSince {
  Rule rule;
  int since_minor;   // the ABI minor that wrote the rule; kNever when plugin.h leaves it open
  const char *what;  // the rule, as the notes say it
};
constexpr int kNever = -1;

const std::vector<RuleSince> &rule_table();

// The ABI minor the plugin under test reports: set once per child process
// when the plugin is opened (before any check runs), so every comparison of
// that process judges by it. Until then, the newest: every rule applies.
void hold_to_abi_minor(uint32_t minor);
uint32_t held_abi_minor();

// Whether `rule` binds a plugin of ABI minor `minor` (the held one when not
// given).
bool rule_applies(Rule rule, uint32_t minor);
bool rule_applies(Rule rule);

// One note per rule the held plugin is not held to ("ABI 1.0 plugin: not held
// to ... (a rule since 1.1)"); none for a plugin of the current minor.
std::vector<std::string> rules_not_applied();

// What compare_outputs accepts for an output element besides the expected
// bits, by the element's C-order position: empty when nothing is open.
enum class Leeway : uint8_t { none, any_value, either_zero };
std::vector<Leeway> output_leeway(const Case &c);

}  // namespace bpcheck
