// Host transfers pass through the device's pinned staging ring; copies
// between devices are fenced into both devices' streams with events.
#include "transfer.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <mutex>

#include "buffer.hpp"
#include "device.hpp"
#include "errors.hpp"
#include "scratch.hpp"
#include "staging_ring.hpp"

namespace bp_cuda {

namespace {

// Chunks of a read kept in flight: the device copies one while the host
// copies the previous one out.
constexpr size_t kReadDepth = 2;

// The buffer of a host transfer (write, read) once its arguments are
// checked: `buffer` live and [offset, offset + bytes) inside it, `host`
// (named `host_what`) not NULL; NULL when there are no bytes to move.
bp_buffer_s *host_transfer_target(bp_buffer buffer, uint64_t offset, const void *host, uint64_t bytes,
                                  const char *entry, const char *what, const char *host_what) {
  bp_buffer_s &b = checked_buffer(buffer, entry, what);
  check_range(b, offset, bytes, entry, what);
  if (bytes == 0) return nullptr;
  if (!host) fail(BP_ERR_INVALID_ARGUMENT, "cuda: %s: %s is NULL", entry, host_what);
  return &b;
}

uint64_t chunk_at(uint64_t done, uint64_t bytes) { return std::min(bytes - done, StagingRing::kChunk); }

// A copy within one device. cudaMemcpyAsync's ranges must not overlap, so
// an overlapping one (same buffer) goes through scratch memory: memmove.
void copy_same_device(bp_buffer_s &s, uint64_t src_offset, bp_buffer_s &d, uint64_t dst_offset, uint64_t bytes) {
  const bool same_buffer = s.block.ptr == d.block.ptr;
  if (same_buffer && src_offset == dst_offset) return;  // onto itself: nothing changes
  Device &device = *s.device;
  Device::Lock lock = device.lock();
  const bool overlap = same_buffer && src_offset < dst_offset + bytes && dst_offset < src_offset + bytes;
  if (!overlap) {
    device.copy_async(lock, d.data() + dst_offset, s.data() + src_offset, bytes, cudaMemcpyDeviceToDevice);
    return;
  }
  Scratch scratch(device, lock);
  void *between = scratch.get(bytes);
  device.copy_async(lock, between, s.data() + src_offset, bytes, cudaMemcpyDeviceToDevice);
  device.copy_async(lock, d.data() + dst_offset, between, bytes, cudaMemcpyDeviceToDevice);
}

// A copy between two devices, both locked. It runs on the destination's
// stream (so later work there sees the data) after everything issued to
// the source so far; then the source's stream waits for it, so that later
// work there cannot overwrite the source, or reuse its memory, while it is
// still being read.
void copy_between_devices(Device &from, const Device::Lock &from_lock, const char *src, Device &to,
                          const Device::Lock &to_lock, char *dst, uint64_t bytes) {
  if (to.can_access_peer(from.index())) {
    to.enable_peer_access(to_lock, from.index());
    to.wait_for(to_lock, from.marker(from_lock));
    check_cuda(cudaMemcpyPeerAsync(dst, to.index(), src, from.index(), bytes, to.stream(to_lock)),
               "cudaMemcpyPeerAsync", to.name());
    from.wait_for(from_lock, to.marker(to_lock));
    return;
  }
  // No peer access: chunk by chunk through the source's pinned ring. Each
  // chunk is copied out on the source's stream (after its earlier work),
  // into the destination on its stream, and its piece is reused only after
  // the source's stream has seen that second copy finish.
  StagingRing &ring = from.staging(from_lock);
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = chunk_at(done, bytes);
    PieceGuard guard(ring, ring.reserve(from_lock, n));
    from.copy_async(from_lock, guard.piece().host, src + done, n, cudaMemcpyDeviceToHost);
    ring.record(from_lock, guard.piece());  // covers the first copy, should a later step fail
    to.wait_for(to_lock, from.marker(from_lock));
    to.copy_async(to_lock, dst + done, guard.piece().host, n, cudaMemcpyHostToDevice);
    from.wait_for(from_lock, to.marker(to_lock));
    ring.record(from_lock, guard.piece());  // now covers the copy into dst as well
    done += n;
  }
}

}  // namespace

void buffer_write(bp_buffer dst, uint64_t offset, const void *src, uint64_t bytes) {
  bp_buffer_s *const b = host_transfer_target(dst, offset, src, bytes, "write", "dst", "src");
  if (!b) return;
  Device &device = *b->device;
  Device::Lock lock = device.lock();
  StagingRing &ring = device.staging(lock);
  const char *from = static_cast<const char *>(src);
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = chunk_at(done, bytes);
    PieceGuard guard(ring, ring.reserve(lock, n));
    std::memcpy(guard.piece().host, from + done, n);
    device.copy_async(lock, b->data() + offset + done, guard.piece().host, n, cudaMemcpyHostToDevice);
    ring.record(lock, guard.piece());
    done += n;
  }
}

void buffer_read(bp_buffer src, uint64_t offset, void *dst, uint64_t bytes) {
  bp_buffer_s *const b = host_transfer_target(src, offset, dst, bytes, "read", "src", "dst");
  if (!b) return;
  Device &device = *b->device;
  // Held throughout: the pieces in flight must stay this read's until they
  // are copied out (and other threads' work on the device waits meanwhile).
  Device::Lock lock = device.lock();
  StagingRing &ring = device.staging(lock);

  struct Chunk {
    StagingRing::Piece piece;
    uint64_t at, bytes;
  };
  std::deque<Chunk> in_flight;
  struct ReleaseAll {  // on any exit, also by an exception
    StagingRing &ring;
    std::deque<Chunk> &chunks;
    ~ReleaseAll() {
      for (const Chunk &c : chunks) ring.release(c.piece);
    }
  } release_all{ring, in_flight};

  uint64_t issued = 0;
  auto issue = [&] {
    const uint64_t n = chunk_at(issued, bytes);
    in_flight.push_back(Chunk{ring.reserve(lock, n), issued, n});
    device.copy_async(lock, in_flight.back().piece.host, b->data() + offset + issued, n, cudaMemcpyDeviceToHost);
    ring.record(lock, in_flight.back().piece);
    issued += n;
  };
  while (issued < bytes && in_flight.size() < kReadDepth) issue();
  char *to = static_cast<char *>(dst);
  while (!in_flight.empty()) {
    const Chunk chunk = in_flight.front();
    ring.wait(lock, chunk.piece);  // the stream is in order: all earlier work is done too
    std::memcpy(to + chunk.at, chunk.piece.host, chunk.bytes);
    in_flight.pop_front();
    ring.release(chunk.piece);
    if (issued < bytes) issue();
  }
}

void buffer_copy(bp_buffer src, uint64_t src_offset, bp_buffer dst, uint64_t dst_offset, uint64_t bytes) {
  bp_buffer_s &s = checked_buffer(src, "copy", "src");
  bp_buffer_s &d = checked_buffer(dst, "copy", "dst");
  check_range(s, src_offset, bytes, "copy", "src");
  check_range(d, dst_offset, bytes, "copy", "dst");
  if (bytes == 0) return;
  if (s.device == d.device) return copy_same_device(s, src_offset, d, dst_offset, bytes);
  Device &from = *s.device, &to = *d.device;
  Device::Lock from_lock(from.mutex(), std::defer_lock), to_lock(to.mutex(), std::defer_lock);
  std::lock(from_lock, to_lock);  // both, in no fixed order, without deadlock
  copy_between_devices(from, from_lock, s.data() + src_offset, to, to_lock, d.data() + dst_offset, bytes);
}

}  // namespace bp_cuda
