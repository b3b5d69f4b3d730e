// bfloat16 GEMM through oneDNN's matmul primitive (gemm_onednn.hpp). Built
// only when CMake finds oneDNN. The backend's pool splits the product and
// every block runs oneDNN on one thread: an OpenMP team would leave
// libgomp's workers spinning after each call, on the cores that OpenBLAS's
// threads need next (float16 GEMM fell to 0.73x of sgemm behind it).
#include "gemm_onednn.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <string>

#include "oneapi/dnnl/dnnl.hpp"
#include "parallel.hpp"
#include "thread_pool.hpp"

namespace cpu_backend {

namespace {

using dnnl::memory;

struct Probe {
  bool native = false;
  std::string kernel;
};

// A small product tells which kernel oneDNN picks here: only a native
// bfloat16 one (AVX-512 BF16 or AMX) beats sgemm; emulation and the
// reference kernel do not.
Probe probe() {
  Probe p;
  try {
    const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    const memory::desc a({64, 64}, memory::data_type::bf16, memory::format_tag::ab);
    const memory::desc c({64, 64}, memory::data_type::f32, memory::format_tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, a, c), engine);
    p.kernel = pd.impl_info_str();
    p.native = p.kernel.find("avx512_core_bf16") != std::string::npos || p.kernel.find("amx") != std::string::npos;
  } catch (const dnnl::error &e) {
    p.kernel = std::string("unavailable: ") + e.what();
  }
  return p;
}

const Probe &probed() {
  static const Probe p = probe();
  return p;
}

// Smallest exponent among nonzero elements (bfloat16's biased exponent
// field), or 256 when all are zero; -1 when an element is subnormal.
int min_exponent_serial(const uint16_t *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  int least = 256;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const uint16_t h = p[i * rs + j * cs];
      const int e = (h >> 7) & 0xff;
      if (e == 0 && (h & 0x7f) != 0) return -1;
      if ((h & 0x7fff) != 0) least = std::min(least, e);
    }
  return least;
}

// The same over the pool's threads: on one thread the scan of both
// operands would leave the other cores idle before every product.
int min_exponent(ThreadPool &pool, const uint16_t *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  std::atomic<int> least{256};
  parallel_for(pool, rows, std::max<int64_t>(cols, 1), [&](int64_t begin, int64_t end) {
    const int e = min_exponent_serial(p + begin * rs, end - begin, cols, rs, cs);
    for (int seen = least.load(std::memory_order_relaxed);
         e < seen && !least.compare_exchange_weak(seen, e, std::memory_order_relaxed);) {
    }
  });
  return least.load(std::memory_order_relaxed);
}

// Columns (or rows) of c per block at least, and the multiple that blocks
// are cut at.
constexpr int64_t kMinBlock = 64;
constexpr int64_t kTile = 32;

// Compiled primitives by block shape and operand strides: a repeated
// shape then skips building the primitive descriptor, which oneDNN's own
// cache does not (a product of n = 512 takes about a millisecond). A oneDNN 2.x primitive may execute
// on several threads at once with different memory objects.
using Key = std::array<int64_t, 8>;

const dnnl::engine &engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// a (m x k) and b (k x n), bfloat16, at the key's strides; c float32 with
// row stride ldc.
struct Descs {
  explicit Descs(const Key &key)
      : a({key[0], key[2]}, memory::data_type::bf16, memory::dims{key[3], key[4]}),
        b({key[2], key[1]}, memory::data_type::bf16, memory::dims{key[5], key[6]}),
        c({key[0], key[1]}, memory::data_type::f32, memory::dims{key[7], 1}) {}
  memory::desc a, b, c;
};

dnnl::matmul primitive_for(const Key &key) {
  static std::mutex mutex;
  static std::map<Key, dnnl::matmul> cache;
  constexpr size_t kCapacity = 64;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache.find(key);
    if (found != cache.end()) return found->second;
  }
  const Descs d(key);
  const dnnl::matmul product(dnnl::matmul::primitive_desc(dnnl::matmul::desc(d.a, d.b, d.c), engine()));
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= kCapacity) cache.clear();
  cache.emplace(key, product);
  return product;
}

// One block of the product on the calling thread alone. oneDNN runs on
// OpenMP; with this thread's OpenMP thread count at 1 it opens no parallel
// region, so libgomp never starts workers that would spin after it and
// take the cores from OpenBLAS's threads (the pool gives the parallelism).
bool run_block(const uint16_t *a, int64_t a_rs, int64_t a_cs, const uint16_t *b, int64_t b_rs, int64_t b_cs, float *c,
               int64_t ldc, int64_t m, int64_t n, int64_t k) noexcept {
  try {
    omp_set_num_threads(1);
    const Key key{m, n, k, a_rs, a_cs, b_rs, b_cs, ldc};
    const dnnl::matmul product = primitive_for(key);
    const Descs d(key);
    const memory am(d.a, engine(), const_cast<uint16_t *>(a)), bm(d.b, engine(), const_cast<uint16_t *>(b));
    const memory cm(d.c, engine(), c);
    dnnl::stream stream(engine());
    product.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
    return true;
  } catch (const std::exception &) {
    return false;
  }
}

}  // namespace

bool onednn_bf16_available() { return probed().native; }
const char *onednn_bf16_kernel() { return probed().kernel.c_str(); }

bool bf16_gemm_exact_enough(ThreadPool &pool, const uint16_t *a, int64_t a_rows, int64_t a_cols, int64_t a_rs,
                            int64_t a_cs, const uint16_t *b, int64_t b_rows, int64_t b_cols, int64_t b_rs,
                            int64_t b_cs) {
  const int ea = min_exponent(pool, a, a_rows, a_cols, a_rs, a_cs);
  if (ea < 0) return false;
  const int eb = min_exponent(pool, b, b_rows, b_cols, b_rs, b_cs);
  if (eb < 0) return false;
  if (ea == 256 || eb == 256) return true;  // every product is 0
  // Each product is a multiple of 2^(ea - 127 - 7) * 2^(eb - 127 - 7), and so
  // is every nonzero float32 sum of them: at least 2^-126 keeps them normal.
  return (ea - 134) + (eb - 134) >= -126;
}

bool onednn_bf16_gemm(ThreadPool &pool, const uint16_t *a, int64_t a_rs, int64_t a_cs, const uint16_t *b,
                      int64_t b_rs, int64_t b_cs, float *c, int64_t m, int64_t n, int64_t k) {
  // Blocks of c's columns: each thread then packs only its part of b into
  // the kernel's layout (1.4x faster than blocks of rows at n = 2048, where
  // every thread packs all of b). Rows only when there are too few columns
  // for a block per thread. Blocks are cut at multiples of the kernel's tile.
  const int64_t threads = pool.threads();
  const bool by_rows = n < threads * kMinBlock && m > n;
  const int64_t extent = by_rows ? m : n;
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(threads, extent / kMinBlock));
  const int64_t step = (extent / blocks + kTile - 1) / kTile * kTile;
  struct Context {
    const uint16_t *a, *b;
    float *c;
    int64_t a_rs, a_cs, b_rs, b_cs, m, n, k, step, extent;
    bool by_rows;
    std::atomic<bool> failed{false};
  } context{a, b, c, a_rs, a_cs, b_rs, b_cs, m, n, k, step, extent, by_rows};
  pool.run(
      (extent + step - 1) / step,
      [](void *p, int64_t i) {
        Context &x = *static_cast<Context *>(p);
        const int64_t begin = i * x.step, size = std::min(x.step, x.extent - begin);
        const bool ok = x.by_rows ? run_block(x.a + begin * x.a_rs, x.a_rs, x.a_cs, x.b, x.b_rs, x.b_cs,
                                              x.c + begin * x.n, x.n, size, x.n, x.k)
                                  : run_block(x.a, x.a_rs, x.a_cs, x.b + begin * x.b_cs, x.b_rs, x.b_cs, x.c + begin,
                                              x.n, x.m, size, x.k);
        if (!ok) x.failed.store(true, std::memory_order_relaxed);
      },
      &context);
  return !context.failed.load(std::memory_order_relaxed);
}

}  // namespace cpu_backend
