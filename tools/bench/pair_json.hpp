// pair_json.hpp — a compare() result (timing.hpp) in the JSON lines that
// bp-bench-mpi and bp-bench-nccl print and fig_allreduce.cpp reads back:
// each side's milliseconds per repetition and the spread of its batches.
#pragma once

#include <nlohmann/json.hpp>

#include "timing.hpp"

namespace bptool::bench {

inline nlohmann::json pair_ms_json(const Pair &p) {
  return {{"backplane_ms", p.a * 1e3},
          {"baseline_ms", p.b * 1e3},
          {"backplane_spread", p.a_spread},
          {"baseline_spread", p.b_spread}};
}

// The pair back, its times in ms; a field that is missing or not a number
// is NaN.
inline Pair pair_ms_from_json(const nlohmann::json &doc) {
  const auto number = [&doc](const char *key) {
    const auto it = doc.find(key);
    return it != doc.end() && it->is_number() ? it->get<double>() : kNaN;
  };
  Pair p;
  p.a = number("backplane_ms");
  p.b = number("baseline_ms");
  p.a_spread = number("backplane_spread");
  p.b_spread = number("baseline_spread");
  return p;
}

}  // namespace bptool::bench
