// Pinned host memory through which one device's host transfers pass.
//
// DMA needs page-locked memory; copying a caller's (pageable) bytes into a
// pinned piece first lets write() return at once with the caller's memory
// free to reuse, and lets copies of one chunk overlap the memcpy of the next.
// The ring is one pinned allocation, handed out in pieces in FIFO order;
// a piece is reusable when the caller has released it and the event
// recorded after its copy has completed. Events recorded on one stream
// complete in order, so pieces come back in the order they went out.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace bp_cuda {

class Device;

class StagingRing {
 public:
  static constexpr uint64_t kCapacity = uint64_t(16) << 20;
  // Largest piece: transfers are cut into chunks this size. A quarter of
  // the ring keeps several chunks in flight.
  static constexpr uint64_t kChunk = kCapacity / 4;

  struct Piece {
    uint64_t id;
    char *host;
  };

  using Lock = std::unique_lock<std::mutex>;  // the device's lock (Device::Lock)

  explicit StagingRing(Device &device) : device_(device) {}
  StagingRing(const StagingRing &) = delete;
  StagingRing &operator=(const StagingRing &) = delete;

  // `bytes` (1..kChunk) of pinned memory, held for the caller until
  // release(); waits for earlier copies to finish when the ring is full.
  // All members are called with the device lock held.
  Piece reserve(const Lock &lock, uint64_t bytes);
  // Records the piece's event after all work issued so far to the device's
  // stream (the copies that use it).
  void record(const Lock &lock, const Piece &piece);
  // Waits on the host for the piece's recorded event.
  void wait(const Lock &lock, const Piece &piece);
  // The caller is done with the piece's memory (the ring reuses it once its
  // recorded work is done; an unrecorded piece at once).
  void release(const Piece &piece) noexcept;

 private:
  struct Segment {
    uint64_t id, begin, end;
    cudaEvent_t event;
    bool recorded, held;
  };
  Segment &find(uint64_t id);
  void reclaim(const Lock &lock);
  bool place(uint64_t bytes, uint64_t *begin) const;

  Device &device_;
  char *memory_ = nullptr;        // kCapacity pinned bytes, allocated on first use
  std::deque<Segment> segments_;  // in use, oldest first
  uint64_t head_ = 0;             // where the next piece starts, if it fits
  uint64_t next_id_ = 0;
  std::vector<cudaEvent_t> spare_events_;
};

// Releases a piece when it goes out of scope, also when a copy failed.
class PieceGuard {
 public:
  PieceGuard(StagingRing &ring, StagingRing::Piece piece) : ring_(ring), piece_(piece) {}
  ~PieceGuard() { ring_.release(piece_); }
  PieceGuard(const PieceGuard &) = delete;
  PieceGuard &operator=(const PieceGuard &) = delete;
  const StagingRing::Piece &piece() const { return piece_; }

 private:
  StagingRing &ring_;
  StagingRing::Piece piece_;
};

}  // namespace bp_cuda
