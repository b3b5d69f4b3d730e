// L3 collectives, malformed calls: each breaks one rule of
// bp_collective_args and must be refused with a message, writing nothing.
#include <cstring>

#include "collective_oracle.hpp"
#include "groups.hpp"
#include "text.hpp"
#include "views.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

using Bytes = std::vector<uint8_t>;

// A malformed call: an ALL_REDUCE SUM of float32 [4] on `devices`, broken by
// `mutate`, must fail with a message and write nothing.
template <class Mutate>
void refused(Recorder &rec, Plugin &p, const std::vector<int32_t> &devices, const std::string &what, Mutate &&mutate) {
  const std::string label = "collective with " + what;
  rec.begin(label);
  const Bytes ones = [] {
    Bytes b(16);
    for (int i = 0; i < 4; ++i) {
      const float one = 1.0f;
      std::memcpy(b.data() + 4 * i, &one, 4);
    }
    return b;
  }();
  std::vector<GuardedBuffer> in(devices.size()), out(devices.size());
  std::vector<bp_plugin_tensor> in_views, out_views;
  std::vector<int32_t> ids = devices;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::string problem = in[i].make(p, devices[i], ones, 16, kInputPattern);
    if (problem.empty()) problem = out[i].make(p, devices[i], {}, 16, kOutputPattern);
    if (!problem.empty()) {
      rec.fail(label + ": " + problem);
      return;
    }
    in_views.push_back(in[i].view(BP_FLOAT32, {4}));
    out_views.push_back(out[i].view(BP_FLOAT32, {4}));
  }
  bp_collective_args args{};
  args.struct_size = sizeof args;
  args.collective = BP_COLLECTIVE_ALL_REDUCE;
  args.reduce_op = BP_REDUCE_SUM;
  args.count = int32_t(ids.size());
  args.devices = ids.data();
  args.inputs = in_views.data();
  args.outputs = out_views.data();
  const bp_collective_args *given = mutate(args, ids, in_views, out_views);
  const bp_status s = p.collective(given);
  const std::string message = s == BP_OK ? "" : p.last_error();
  bool untouched = true;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::string problem;
    untouched = untouched && out[i].now(&problem) == out[i].contents && problem.empty();
  }
  if (s == BP_OK)
    rec.fail(label + " returned BP_OK; a malformed call is an error with a message");
  else if (message.empty())
    rec.fail(label + " returned " + status_name(s) + " without a message (last_error is empty)");
  else if (!untouched)
    rec.fail(label + " returned " + status_name(s) + " but wrote into an output");
  else
    rec.pass(label + " is refused (" + status_name(s) + ")");
}

using Args = bp_collective_args;
using Views = std::vector<bp_plugin_tensor>;
using Ids = std::vector<int32_t>;

}  // namespace

void check_collective_malformed(Recorder &rec, Plugin &p, const std::vector<int32_t> &devices) {
  const Ids one = {devices[0]};
  refused(rec, p, one, "NULL args", [](Args &, Ids &, Views &, Views &) -> const Args * { return nullptr; });
  refused(rec, p, one, "count 0", [](Args &a, Ids &, Views &, Views &) {
    a.count = 0;
    return &a;
  });
  refused(rec, p, one, "a struct_size older than 1.2", [](Args &a, Ids &, Views &, Views &) {
    a.struct_size = uint32_t(offsetof(bp_collective_args, group));
    return &a;
  });
  refused(rec, p, one, "NULL devices", [](Args &a, Ids &, Views &, Views &) {
    a.devices = nullptr;
    return &a;
  });
  refused(rec, p, one, "NULL inputs", [](Args &a, Ids &, Views &, Views &) {
    a.inputs = nullptr;
    return &a;
  });
  refused(rec, p, one, "NULL outputs", [](Args &a, Ids &, Views &, Views &) {
    a.outputs = nullptr;
    return &a;
  });
  refused(rec, p, one, "the unknown collective 99", [](Args &a, Ids &, Views &, Views &) {
    a.collective = 99;
    return &a;
  });
  refused(rec, p, one, "the unknown reduce_op 99", [](Args &a, Ids &, Views &, Views &) {
    a.reduce_op = 99;
    return &a;
  });
  refused(rec, p, one, "a device index it does not have", [&](Args &a, Ids &ids, Views &, Views &) {
    ids[0] = p.device_count() + 7;
    return &a;
  });
  refused(rec, p, one, "a broadcast root that is no participant", [](Args &a, Ids &, Views &, Views &) {
    a.collective = BP_COLLECTIVE_BROADCAST;
    a.root = 1;
    return &a;
  });
  refused(rec, p, one, "a non-contiguous input", [](Args &a, Ids &, Views &in, Views &) {
    in[0].shape[0] = 2;
    in[0].strides[0] = 2;
    return &a;
  });
  refused(rec, p, one, "an output of another shape", [](Args &a, Ids &, Views &, Views &out) {
    out[0].shape[0] = 3;
    return &a;
  });
  refused(rec, p, one, "an output of another dtype", [](Args &a, Ids &, Views &, Views &out) {
    out[0].dtype = BP_INT32;
    return &a;
  });
  refused(rec, p, one, "an input reaching past its buffer", [](Args &a, Ids &, Views &in, Views &) {
    in[0].shape[0] = 40;
    return &a;
  });
  refused(rec, p, one, "a NULL input buffer", [](Args &a, Ids &, Views &in, Views &) {
    in[0].buffer = nullptr;
    return &a;
  });
  refused(rec, p, one, "an output half over its input", [](Args &a, Ids &, Views &in, Views &out) {
    in[0].shape[0] = 2;
    out[0] = in[0];
    out[0].offset += 4;
    return &a;
  });
  if (devices.size() < 2) return;
  const Ids two = {devices[0], devices[1]};
  refused(rec, p, two, "one device twice", [](Args &a, Ids &ids, Views &, Views &) {
    ids[1] = ids[0];
    return &a;
  });
  refused(rec, p, two, "inputs of two shapes", [](Args &a, Ids &, Views &in, Views &out) {
    in[1].shape[0] = out[1].shape[0] = 3;
    return &a;
  });
  refused(rec, p, two, "an input on another participant's device", [](Args &a, Ids &, Views &in, Views &) {
    in[1].buffer = in[0].buffer;
    return &a;
  });
}

}  // namespace bpcheck
