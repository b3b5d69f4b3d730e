// An operator test case as host data: the bytes of each buffer (storages)
// and the strided views into them that are the op's inputs and output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backplane/plugin.h"

namespace bpcheck {

// A tensor argument as host data: which storage, and the view into it. A
// view of dtype BP_DTYPE_INVALID (storage -1) is an absent one (plugin.h,
// execute; since 1.6).
struct ViewDesc {
  int storage = 0;
  int32_t dtype = BP_FLOAT32;
  int32_t rank = 0;
  int64_t shape[BP_MAX_RANK] = {0};
  int64_t strides[BP_MAX_RANK] = {0};
  uint64_t offset = 0;  // bytes
};

int64_t numel(const ViewDesc &v);

// An absent input or output.
ViewDesc absent_view();
inline bool is_absent(const ViewDesc &v) { return v.dtype == BP_DTYPE_INVALID; }

struct Case {
  std::string label;  // "shape [5, 7]"
  int32_t op = 0;
  bp_op_attrs attrs{};
  std::vector<std::vector<uint8_t>> storages;  // initial contents of each buffer
  std::vector<ViewDesc> inputs;
  ViewDesc output;
  // Outputs 1.. of a family that writes several (vocabulary.h's
  // BP_OP_FAMILY_OUTPUTS_LIST; since 1.6), in plugin.h's order.
  std::vector<ViewDesc> more_outputs;
  // The sliding window a CONV or POOL case passes as attrs.params (since
  // 1.6): the runner points attrs.params at it when the case's own attrs run.
  std::optional<bp_window_params> window;
  double scale_floor = 0;  // values are compared relative to at least this
};

// Output i of the case: 0 is `output`, the rest `more_outputs`.
inline const ViewDesc &output_at(const Case &c, size_t i) { return i == 0 ? c.output : c.more_outputs[i - 1]; }
inline size_t output_count(const Case &c) { return 1 + c.more_outputs.size(); }


}  // namespace bpcheck
