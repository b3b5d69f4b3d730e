// Element values of a case: reading and writing one element of any dtype,
// random values in a range that keeps each op well defined, the special
// values (NaN, infinities, extreme integers) and how an element is shown.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "case.hpp"
#include "views.hpp"

namespace bpcheck {

struct Val {
  double d = 0;   // for float dtypes
  int64_t i = 0;  // for int and bool dtypes
};

// One element of `dtype` at p; by the dtype's kind and size (vocabulary.h).
void store(int32_t dtype, uint8_t *p, Val v);
double load_double(int32_t dtype, const uint8_t *p);
int64_t load_int(int32_t dtype, const uint8_t *p);
// "1.5", "-7", "1": an element as a failure message shows it.
std::string value_text(int32_t dtype, const uint8_t *p);

// Where random values come from.
struct Domain {
  enum Kind { uniform, nonzero, ints, full, full32, boolean } kind = uniform;
  double lo = -10, hi = 10;
};

Val draw(std::mt19937_64 &rng, int32_t dtype, const Domain &dom);
// Input values that keep `op` inside its defined, well-conditioned range.
Domain domain_for(int32_t op, int input, int32_t dtype, int32_t out_dtype);

// Whether the special values have a defined result for this op and dtype,
// and those values (for COPY, also what converting to out_dtype must round
// right).
bool specials_apply(int32_t op, int32_t dtype);
std::vector<Val> specials_for(int32_t op, int32_t dtype, int32_t out_dtype = 0);

// Every element of view v of c set to value_of(index, i).
template <class F>
void fill(Case &c, const ViewDesc &v, F &&value_of) {
  std::vector<uint8_t> &s = c.storages[size_t(v.storage)];
  for_each_index(v, [&](const int64_t *idx, int64_t i) { store(v.dtype, s.data() + byte_at(v, idx), value_of(idx, i)); });
}
void fill_random(Case &c, const ViewDesc &v, std::mt19937_64 &rng, const Domain &dom);

std::vector<uint8_t> random_bytes(std::mt19937_64 &rng, size_t n);

}  // namespace bpcheck
