#include "staging_ring.hpp"

#include "device.hpp"
#include "errors.hpp"

namespace bp_cuda {

StagingRing::Segment &StagingRing::find(uint64_t id) {
  for (Segment &s : segments_)
    if (s.id == id) return s;
  fail(BP_ERR_INTERNAL, "cuda: staging piece %llu of %s is not in use", static_cast<unsigned long long>(id),
       device_.name());
}

// Hands back, oldest first, the pieces that are released and whose copies
// have completed.
void StagingRing::reclaim(const Lock &lock) {
  while (!segments_.empty()) {
    Segment &oldest = segments_.front();
    if (oldest.held) break;
    if (oldest.recorded) {
      device_.activate(lock);
      const cudaError_t code = cudaEventQuery(oldest.event);
      if (code == cudaErrorNotReady) {
        (void)cudaGetLastError();  // "not yet" is an answer, not an error to keep
        break;
      }
      check_cuda(code, "cudaEventQuery", device_.name());
    }
    spare_events_.push_back(oldest.event);
    segments_.pop_front();
  }
  if (segments_.empty()) head_ = 0;
}

// Where `bytes` contiguous free bytes start, if anywhere. In use is the
// circular stretch from the oldest piece's start to head_; a piece that
// does not fit before the end of the ring starts over at 0.
bool StagingRing::place(uint64_t bytes, uint64_t *begin) const {
  if (segments_.empty()) {
    *begin = 0;
    return true;
  }
  const uint64_t tail = segments_.front().begin;
  if (head_ > tail) {  // in use: [tail, head_)
    if (kCapacity - head_ >= bytes) {
      *begin = head_;
      return true;
    }
    if (tail >= bytes) {
      *begin = 0;
      return true;
    }
    return false;
  }
  if (head_ < tail && tail - head_ >= bytes) {  // in use: [tail, end) and [0, head_)
    *begin = head_;
    return true;
  }
  return false;  // head_ == tail with pieces in use: full
}

StagingRing::Piece StagingRing::reserve(const Lock &lock, uint64_t bytes) {
  if (bytes == 0 || bytes > kChunk)
    fail(BP_ERR_INTERNAL, "cuda: staging piece of %llu bytes requested on %s", static_cast<unsigned long long>(bytes),
         device_.name());
  device_.activate(lock);
  if (!memory_) {
    void *memory = nullptr;
    // Portable: pinned for every device's context, since a copy between two
    // devices without peer access stages through the source's ring.
    check_cuda(cudaHostAlloc(&memory, kCapacity, cudaHostAllocPortable), "cudaHostAlloc (staging ring)",
               device_.name());
    memory_ = static_cast<char *>(memory);
  }
  for (;;) {
    reclaim(lock);
    uint64_t begin = 0;
    if (place(bytes, &begin)) {
      cudaEvent_t event = nullptr;
      if (!spare_events_.empty()) {
        event = spare_events_.back();
        spare_events_.pop_back();
      } else {
        check_cuda(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags",
                   device_.name());
      }
      segments_.push_back(Segment{next_id_, begin, begin + bytes, event, false, true});
      head_ = begin + bytes;
      return Piece{next_id_++, memory_ + begin};
    }
    // Full: wait for the oldest piece's copies. Callers hold at most two
    // pieces of a quarter of the ring each, so it is never held here.
    const Segment &oldest = segments_.front();
    if (oldest.held || !oldest.recorded)
      fail(BP_ERR_INTERNAL, "cuda: the staging ring of %s is full of pieces in use", device_.name());
    check_cuda(cudaEventSynchronize(oldest.event), "cudaEventSynchronize", device_.name());
  }
}

void StagingRing::record(const Lock &lock, const Piece &piece) {
  Segment &s = find(piece.id);
  check_cuda(cudaEventRecord(s.event, device_.stream(lock)), "cudaEventRecord", device_.name());
  s.recorded = true;
}

void StagingRing::wait(const Lock &lock, const Piece &piece) {
  Segment &s = find(piece.id);
  device_.activate(lock);
  check_cuda(cudaEventSynchronize(s.event), "cudaEventSynchronize", device_.name());
}

void StagingRing::release(const Piece &piece) noexcept {
  for (Segment &s : segments_) {
    if (s.id == piece.id) {
      s.held = false;
      return;
    }
  }
}

}  // namespace bp_cuda
