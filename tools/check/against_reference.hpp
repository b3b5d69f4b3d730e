// What the L2 groups that check a family case by case against the reference
// plugin share (softmax, normalisation, attention, convolution, pooling):
// one verdict per case, in the same words, so a report reads alike whichever
// group wrote it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "case.hpp"
#include "groups.hpp"

namespace bpcheck {

// Whether the plugin under test is the reference's own file; then notes
// `how`, what the group checks it for instead of comparing it with itself.
bool is_reference_itself(Recorder &rec, const Plugin &p, const Plugin &ref, const char *how);

// Whether the reference implements `combo` (named `name`); else notes that
// plugin.h does not define it, so it goes uncompared.
bool reference_declares(Recorder &rec, Plugin &ref, const Combo &combo, const std::string &name);

// One declared combination on one device of the plugin under test.
struct Comparison {
  Plugin &plugin;
  int32_t device;
  Plugin &reference;  // run on its device 0
  std::string name;   // combo_name of the combination
  std::string on;     // " on <device>", or "" where the device goes without saying
  bool self;          // is_reference_itself: a case that runs is judged for what it writes alone
  // Whether a case the reference fails fails the combination; else the
  // case is noted and left out.
  bool reference_must_run;
};

enum class CaseVerdict { agreed, not_compared, failed };

// Runs `c` on both plugins, recorded as "<name><on>, <label>" (label: the
// case's, "case " + c.label where the case's own does not say what it is).
CaseVerdict compare_case(Recorder &rec, const Comparison &cmp, const Case &c, const std::string &label);

// compare_case on each case ("case <label>") until one fails; when none
// does, passes as "<n> <what> agree with the reference". How many cases ran.
size_t compare_cases(Recorder &rec, const Comparison &cmp, const std::vector<Case> &cases, const char *what);

}  // namespace bpcheck
