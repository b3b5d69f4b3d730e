// Splits a range of work over the backend's thread pool, or runs it on the
// calling thread when it is small: a hand-off to other threads costs
// microseconds, more than a small operator takes on its own.
#pragma once

#include <algorithm>
#include <cstdint>

#include "thread_pool.hpp"

namespace cpu_backend {

// Below this much work (elements times cost per element) the calling thread
// does everything alone.
constexpr int64_t kSerialWork = 32768;

// Relative cost of one element: plain arithmetic is 1, a libm call is more.
constexpr int64_t kCheap = 1;
constexpr int64_t kTranscendental = 8;

// Calls body(begin, end) over pieces of [0, n) covering it exactly once,
// from several threads when n * cost is large. Long pieces start at
// multiples of 64 elements, so vector loops start aligned in each piece.
template <class Body>
void parallel_for(ThreadPool &pool, int64_t n, int64_t cost, Body &&body) {
  int64_t work;
  if (__builtin_mul_overflow(n, cost, &work)) work = INT64_MAX;
  if (work < kSerialWork || pool.threads() == 1) {
    if (n > 0) body(int64_t(0), n);
    return;
  }
  // A few pieces per thread even out uneven progress; none below half the
  // serial threshold.
  const int64_t pieces = std::min<int64_t>(int64_t(pool.threads()) * 4, std::max<int64_t>(2, work / (kSerialWork / 2)));
  struct Context {
    Body *body;
    int64_t n, pieces, align;
    int64_t bound(int64_t i) const {
      if (i == pieces) return n;
      const int64_t b = n / pieces * i + n % pieces * i / pieces;  // n * i / pieces without overflow
      return std::min(n, (b + align - 1) / align * align);
    }
  } context{&body, n, pieces, n / pieces >= 4096 ? 64 : 1};
  pool.run(
      pieces,
      [](void *p, int64_t i) {
        const Context &c = *static_cast<Context *>(p);
        const int64_t b = c.bound(i), e = c.bound(i + 1);
        if (b < e) (*c.body)(b, e);
      },
      &context);
}

}  // namespace cpu_backend
