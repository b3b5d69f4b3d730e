// TOPK's cases (the TOPK family, ABI 1.6): both directions (attrs.option
// with and without BP_OPTION_LARGEST) of rank 1 to 4, every k from 0 to n,
// empty rows and no rows, transposed, strided, broadcast (a row of one
// value repeated: nothing but ties) and rotated inputs (the core moves the
// caller's axis last), strided, transposed and rotated outputs, rows of
// few distinct values (ties everywhere), NaN of either sign and any payload
// beside infinities and both zeros, the type's limits, long rows for small
// and full k, and seeded random shapes, layouts and k. Every bit of both
// outputs is fixed by plugin.h, so they are compared exactly.
#include <cstring>

#include "family_builders.hpp"
#include "vocab.hpp"

namespace bpcheck {

namespace {

// Rows drawn from this few values tie everywhere: integral values (in
// every dtype) from -3 to 3, bool's two.
const Domain kTies = {Domain::ints, -3, 3};

// NaNs of both signs, quiet and signalling, with payloads, as their bits
// (plugin.h: every NaN orders after every number and ties with the others).
std::vector<uint64_t> nan_bits(int32_t dtype) {
  switch (dtype) {
    case BP_FLOAT32: return {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fc12345u};
    case BP_FLOAT64: return {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0x7ff8123456789abcull};
    case BP_FLOAT16: return {0x7e00u, 0xfe00u, 0x7c01u, 0x7e55u};
    case BP_BFLOAT16: return {0x7fc0u, 0xffc0u, 0x7f81u, 0x7fd5u};
    default: return {};
  }
}

// An element of `size` bytes holding `bits`.
void put_bits(uint8_t *at, uint64_t bits, size_t size) {
  const uint16_t b16 = uint16_t(bits);
  const uint32_t b32 = uint32_t(bits);
  std::memcpy(at, size == 2 ? static_cast<const void *>(&b16) : size == 4 ? static_cast<const void *>(&b32) : &bits, size);
}

}  // namespace

void add_topk(Builder &b, Case &c, const Shape &shape, int64_t k, bool largest, LayoutSpec in, LayoutSpec out,
              const Domain &dom) {
  c.attrs.option = largest ? BP_OPTION_LARGEST : 0;
  ViewDesc x = add_view(c, b.dtype, shape, in, false);
  fill_random(c, x, b.rng, dom);
  c.inputs.push_back(x);
  Shape selected = shape;
  if (!selected.empty()) selected.back() = k;
  c.output = add_view(c, b.out_dtype, selected, out, true);
  c.more_outputs.push_back(add_view(c, BP_INT64, selected, out, true));
}

void topk_cases(Builder &b) {
  for (const bool largest : {false, true}) {
    const char *direction = largest ? ", largest" : ", smallest";
    auto topk = [&](const std::string &what, const Shape &shape, int64_t k, LayoutSpec in = dense(),
                    LayoutSpec out = dense(), const Domain &dom = kTies) -> Case & {
      Case &c = b.start(label((what + direction + ", k " + std::to_string(k)).c_str(), shape));
      add_topk(b, c, shape, k, largest, in, out, dom);
      return c;
    };
    topk("rank 1", {17}, 5);
    topk("rank 2", {5, 7}, 3);
    topk("rank 3, whole rows", {2, 3, 4}, 4);
    topk("rank 4", {2, 3, 2, 5}, 1);
    topk("one element", {1}, 1);
    topk("k 0", {4, 6}, 0);
    topk("empty rows", {3, 0}, 0);
    topk("no rows", {0, 5}, 2);
    topk("distinct values", {6, 9}, 4, dense(), dense(), domain_for(b.op, 0, b.dtype, b.out_dtype));
    topk("transposed", {6, 5}, 2, transposed());
    topk("strided", {3, 8}, 8, stepped());
    topk("broadcast along the rows (all ties)", {4, 6}, 3, broadcast(1));
    topk("broadcast across the rows", {4, 6}, 6, broadcast(0));
    topk("strided outputs", {3, 8}, 5, dense(), stepped());
    topk("transposed outputs", {6, 5}, 5, dense(), transposed());
    topk("rotated", {3, 4, 5}, 2, rotated(), rotated());
    topk("long rows, small k", {3, 3000}, 7);
    topk("long rows, every k", {2, 3000}, 3000);
    topk("large", kLargeish, 250, rotated(), dense(), domain_for(b.op, 0, b.dtype, b.out_dtype));
    {
      // The dtype's specials (NaN, infinities, both zeros, extremes; an
      // integer type's limits; bool's two) and the NaNs of every kind,
      // scattered over rows of ordinary values so that each row has several
      // of each: TOPK is defined for every value.
      std::vector<Val> sp = specials_for(b.op, b.dtype);
      const std::vector<uint64_t> nans = nan_bits(b.dtype);
      Case &c = topk("special values", {8, 40}, 23);
      const ViewDesc &x = c.inputs[0];
      std::vector<uint8_t> &s = c.storages[size_t(x.storage)];
      const size_t esize = size_t(bp_vocab_dtype_size(b.dtype));
      const int64_t width = int64_t(sp.size());
      for_each_index(x, [&](const int64_t *idx, int64_t i) {
        uint8_t *at = s.data() + byte_at(x, idx);
        const uint64_t pick = b.rng() % 4;
        if (pick == 0 && !nans.empty())
          put_bits(at, nans[size_t(b.rng() % nans.size())], esize);
        else if (pick != 3)
          store(b.dtype, at, sp[size_t((i + idx[0]) % width)]);
      });
    }
    // Seeded random cases: rank 1 to 4, extents 0 to 9 (the last up to 40),
    // any layout of each view and any k.
    for (int r = 0; r < 8; ++r) {
      const int rank = 1 + int(b.rng() % 4);
      Shape shape;
      for (int d = 0; d < rank; ++d) shape.push_back(int64_t(b.rng() % (d + 1 == rank ? 41 : 10)));
      const int64_t n = shape.back();
      const int64_t k = int64_t(b.rng() % uint64_t(n + 1));
      const LayoutSpec layouts[] = {dense(), transposed(), stepped(), rotated()};
      const LayoutSpec in = layouts[b.rng() % 4], out = layouts[b.rng() % 4];
      topk("random #" + std::to_string(r), shape, k, in, out, b.rng() % 2 ? kTies : domain_for(b.op, 0, b.dtype, b.out_dtype));
    }
  }
}

}  // namespace bpcheck
