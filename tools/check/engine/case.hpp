// An operator test case as host data: the bytes of each buffer (storages)
// and the strided views into them that are the op's inputs and output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backplane/plugin.h"

namespace bpcheck {

// A tensor argument as host data: which storage, and the view into it.
struct ViewDesc {
  int storage = 0;
  int32_t dtype = BP_FLOAT32;
  int32_t rank = 0;
  int64_t shape[BP_MAX_RANK] = {0};
  int64_t strides[BP_MAX_RANK] = {0};
  uint64_t offset = 0;  // bytes
};

int64_t numel(const ViewDesc &v);

struct Case {
  std::string label;  // "shape [5, 7]"
  int32_t op = 0;
  bp_op_attrs attrs{};
  std::vector<std::vector<uint8_t>> storages;  // initial contents of each buffer
  std::vector<ViewDesc> inputs;
  ViewDesc output;
  double scale_floor = 0;  // values are compared relative to at least this
};

}  // namespace bpcheck
