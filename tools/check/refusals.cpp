#include "refusals.hpp"

#include "vocab.hpp"

namespace bpcheck {

std::string refusal_failure(Plugin &p, bp_status got, bp_status expected, const char *message) {
  if (got != expected)
    return " returned " + (got == BP_OK ? std::string("BP_OK") : p.describe(got)) + "; it must be " +
           status_name(expected);
  if (!message || !*message) return std::string(" failed with ") + status_name(got) + " but last_error() gives no message";
  return "";
}

}  // namespace bpcheck
