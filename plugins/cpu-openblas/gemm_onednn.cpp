// bfloat16 GEMM through oneDNN's matmul primitive (gemm_onednn.hpp). Built
// only when CMake finds oneDNN; oneDNN keeps its own cache of compiled
// primitives, so a repeated shape costs a descriptor, not a JIT.
#include "gemm_onednn.hpp"

#include <omp.h>

#include <algorithm>
#include <mutex>
#include <string>

#include "oneapi/dnnl/dnnl.hpp"

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
int min_exponent(const uint16_t *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
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

}  // namespace

bool onednn_bf16_available() { return probed().native; }
const char *onednn_bf16_kernel() { return probed().kernel.c_str(); }

bool bf16_gemm_exact_enough(const uint16_t *a, int64_t a_rows, int64_t a_cols, int64_t a_rs, int64_t a_cs,
                            const uint16_t *b, int64_t b_rows, int64_t b_cols, int64_t b_rs, int64_t b_cs) {
  const int ea = min_exponent(a, a_rows, a_cols, a_rs, a_cs);
  if (ea < 0) return false;
  const int eb = min_exponent(b, b_rows, b_cols, b_rs, b_cs);
  if (eb < 0) return false;
  if (ea == 256 || eb == 256) return true;  // every product is 0
  // Each product is a multiple of 2^(ea - 127 - 7) * 2^(eb - 127 - 7), and so
  // is every nonzero float32 sum of them: at least 2^-126 keeps them normal.
  return (ea - 134) + (eb - 134) >= -126;
}

bool onednn_bf16_gemm(const uint16_t *a, int64_t a_rs, int64_t a_cs, const uint16_t *b, int64_t b_rs, int64_t b_cs,
                      float *c, int64_t m, int64_t n, int64_t k, int threads) {
  try {
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    const memory::desc a_md({m, k}, memory::data_type::bf16, memory::dims{a_rs, a_cs});
    const memory::desc b_md({k, n}, memory::data_type::bf16, memory::dims{b_rs, b_cs});
    const memory::desc c_md({m, n}, memory::data_type::f32, memory::format_tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
    const dnnl::matmul product(pd);
    const memory am(a_md, engine, const_cast<uint16_t *>(a)), bm(b_md, engine, const_cast<uint16_t *>(b));
    const memory cm(c_md, engine, c);
    dnnl::stream stream(engine);
    // oneDNN runs on OpenMP: this thread's next parallel regions get the
    // backend's thread count, as OpenBLAS does.
    omp_set_num_threads(std::max(threads, 1));
    product.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
    return true;
  } catch (const dnnl::error &) {
    return false;
  }
}

}  // namespace cpu_backend
