// Shared by the TOML reader and the environment overrides, so both accept the
// same values and show them the same way. Internal to backplane_config.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace bp::config::detail {

// Why a value is invalid, or nothing when it is valid. Callers add the
// position and the key.
using Problem = std::optional<std::string>;

Problem check_name(std::string_view name);      // backend or plugin name, device prefix
Problem check_device(std::string_view device);  // [devices] default
Problem check_kind(std::string_view kind);      // one of [devices] accelerator_kinds
Problem check_path(std::string_view path);      // one of [plugins] paths

struct ListProblem {
  std::size_t index;  // the offending item
  std::string reason;
};
// Checks each item, and that no item appears twice.
std::optional<ListProblem> check_list(const std::vector<std::string> &items,
                                      Problem (*check)(std::string_view));

// Values and keys as TOML text, for Entry.
std::string toml_string(std::string_view s);
// A caller's value in a reason: TOML-quoted, at most core::echo's bound.
std::string quoted(std::string_view s);
std::string toml_array(const std::vector<std::string> &items);
std::string toml_bool(bool b);
std::string dotted_key(std::initializer_list<std::string_view> parts);

// Sets the entry for key (replacing an earlier origin), keeping entries sorted.
void record(Config &config, std::string key, std::string value, std::string origin);

}  // namespace bp::config::detail
