// Test cases for operators: host-side storages (the bytes of each buffer),
// views into them, and the machinery to run a case on a plugin, compare its
// output with the reference's, and find writes outside the output.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "backplane/plugin.h"
#include "names.hpp"
#include "plugin.hpp"

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

// A case whose output is its input 0 (x = op(x, y), x = op(x)): binary
// and unary ops with out_dtype == dtype only; also COPY.
bool can_chain(int32_t op, int32_t dtype, int32_t out_dtype);
Case make_chain_case(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed, const std::vector<int64_t> &shape);

// Every test case for one declared combination (L2).
std::vector<Case> make_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed);
// A few ordinary (non-special) cases: for threads and queues (L4).
std::vector<Case> make_small_cases(int32_t op, int32_t dtype, int32_t out_dtype, uint64_t seed,
                                   const std::vector<std::vector<int64_t>> &shapes);

// What running a case produced.
struct Outcome {
  bool ok = false;
  std::string failure;                         // "execute refused it: ...", "read failed: ..."
  std::vector<std::vector<uint8_t>> storages;  // every storage read back after execute
};

// Buffers on one plugin device holding a case's storages.
class BoundCase {
 public:
  BoundCase(Plugin &plugin, int32_t device, const Case &c);
  ~BoundCase();
  BoundCase(const BoundCase &) = delete;
  BoundCase &operator=(const BoundCase &) = delete;
  bool ok() const { return failure_.empty(); }
  const std::string &failure() const { return failure_; }
  bp_status execute();  // the case's op on its views
  bp_status execute(const bp_op_attrs &attrs);
  // Reads every storage back into *out; "" or what failed.
  std::string read_all(std::vector<std::vector<uint8_t>> *out);
  std::string read_storage(int storage, std::vector<uint8_t> *out);
  std::string write_storage(int storage, const std::vector<uint8_t> &bytes);
  bp_buffer buffer(int storage) const { return buffers_[size_t(storage)]; }
  // Frees one buffer now (the rest at destruction).
  bp_status free_storage(int storage);
  // The ABI view of a case's view, on these buffers.
  bp_plugin_tensor tensor(const ViewDesc &v) const;
  // execute with an attrs pointer as given (e.g. a short one at a page end).
  bp_status execute_raw(const bp_op_attrs *attrs);

 private:
  Plugin &plugin_;
  int32_t device_;
  const Case &case_;
  std::vector<bp_buffer> buffers_;
  std::string failure_;
};

// alloc + write + execute + read + free.
Outcome run_case(Plugin &plugin, int32_t device, const Case &c);

// "" when the output storage has its sentinel bytes intact, else what was overwritten
// ("wrote past the end of its output (sentinel ...)").
std::string check_sentinels(const Case &c, const std::vector<uint8_t> &output_storage);
// "" when no input storage (other than the output's) changed.
std::string check_inputs_untouched(const Case &c, const std::vector<std::vector<uint8_t>> &after);
// "" when the output's elements agree with the reference's, within the
// tolerance of the op and dtype.
std::string compare_outputs(const Case &c, const std::vector<uint8_t> &got, const std::vector<uint8_t> &expected);

// The full verdict for one case: "" or the failure text.
std::string judge(const Case &c, const Outcome &got, const Outcome &expected);

}  // namespace bpcheck
