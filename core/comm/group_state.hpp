// The process group's state and the words its errors share: what every
// part of a cross-process collective (agreement, staging, backend groups,
// the group itself) reads and writes, under the state's mutex.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "backplane/backplane.h"
#include "comm/transport.h"
#include "tensors/view.hpp"

namespace bp::core {
class Backend;
}

namespace bp::core::dist {

constexpr double kDefaultTimeout = 300;
// The record's collective for bp_dist_barrier, beside the BP_COLLECTIVE_*.
constexpr int32_t kBarrier = 0;

// Host memory a transport call reads or writes. A call that timed out is
// still pending in MPI, which may write into its buffers whenever the late
// peer arrives: the group then keeps the memory (and the tensors' storages
// used in place) for the life of the process instead of freeing it.
class Scratch {
 public:
  void *buffer(uint64_t bytes) {
    buffers_.emplace_back(new unsigned char[bytes ? bytes : 1]);
    return buffers_.back().get();
  }
  template <class T>
  T *objects(size_t n) {
    T *p = static_cast<T *>(buffer(n * sizeof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T();
    return p;
  }
  void keep(const StorageRef &s) { storages_.push_back(s); }

 private:
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;
  std::vector<StorageRef> storages_;
};

// A backend group this process joined: for one of its devices, from one
// bootstrap. Every bootstrap is collective, so epochs agree across ranks.
struct BackendGroup {
  Backend *backend;
  int32_t device;
  uint64_t group;
  int64_t epoch;
  bool current;  // false once a later bootstrap replaced it for this device
};

struct State {
  std::mutex mutex;  // one collective at a time; init and finalize too
  const bp_transport *t = nullptr;
  bool active = false;
  bool broken = false;     // a collective timed out: MPI waits on a missing peer
  bool abandoned = false;  // a broken group was left: MPI cannot serve another
  double timeout = kDefaultTimeout;
  // Read without the mutex, so that bp_dist_rank answers while a collective waits.
  std::atomic<bool> ready{false};
  std::atomic<int32_t> rank{0}, size{1}, local_rank{0}, local_size{1};
  std::vector<BackendGroup> groups;
  int64_t bootstraps = 0;
  std::vector<Scratch> kept;
};

// Never destroyed: MPI outlives static destructors, and kept memory must stay.
State &state();

// One call of a collective on this rank.
struct Call {
  int32_t collective;
  int32_t reduce_op;
  int32_t root;
  std::string fn;
  const View *view = nullptr;  // the tensor, once its handle is known good
};

std::string seconds(double s);
// A status from the transport or another rank's record; one this build
// does not know (a mismatched build) is reported as BP_ERR_INTERNAL.
bp_status as_status(int32_t s);

// s into a fixed text field of a record, cut to fit.
template <size_t N>
void put(char (&dst)[N], const std::string &s) {
  const size_t n = s.size() < N - 1 ? s.size() : N - 1;
  std::memcpy(dst, s.data(), n);
  dst[n] = '\0';
}

const char *collective_name(int32_t collective);
std::string fn_of(int32_t collective);
std::string reduce_name(int32_t reduce_op);
// "rank r of n", for messages.
std::string rank_of_size(const State &s);

// BP_ERR_STATE before init, BP_ERR_PEER once a collective timed out.
void require_active(State &s, const std::string &fn);
// Turns a transport status into an Error; a timeout breaks the group and
// keeps the call's memory (Scratch).
void check_transport(State &s, const std::string &fn, Scratch &scratch, int32_t status, const std::string &phase);

}  // namespace bp::core::dist
