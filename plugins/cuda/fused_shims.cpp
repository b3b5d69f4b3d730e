// The stand-ins fused_headers() gives NVRTC for the host headers
// elementwise.hpp and narrow_types.hpp include. NVRTC provides the math
// functions (::expf, ...) itself; what is left are the fixed-width
// integers, the few type traits the functors use and the SDK's element
// types (bool, float16, bfloat16). Each agrees with what
// nvcc sees for execute's kernels on the LP64 targets CUDA supports.
#include "fused_headers.hpp"

namespace bp_cuda {

namespace {

constexpr const char *kStdint = R"(#pragma once
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
)";

constexpr const char *kTypeTraits = R"(#pragma once
namespace std {
template <class T, T v>
struct integral_constant {
  static constexpr T value = v;
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <class A, class B>
struct is_same : false_type {};
template <class A>
struct is_same<A, A> : true_type {};
template <class T>
struct is_integral : false_type {};
template <> struct is_integral<bool> : true_type {};
template <> struct is_integral<char> : true_type {};
template <> struct is_integral<signed char> : true_type {};
template <> struct is_integral<unsigned char> : true_type {};
template <> struct is_integral<short> : true_type {};
template <> struct is_integral<unsigned short> : true_type {};
template <> struct is_integral<int> : true_type {};
template <> struct is_integral<unsigned int> : true_type {};
template <> struct is_integral<long> : true_type {};
template <> struct is_integral<unsigned long> : true_type {};
template <> struct is_integral<long long> : true_type {};
template <> struct is_integral<unsigned long long> : true_type {};
template <class T>
struct is_floating_point : false_type {};
template <> struct is_floating_point<float> : true_type {};
template <> struct is_floating_point<double> : true_type {};
template <> struct is_floating_point<long double> : true_type {};
template <class T>
struct make_unsigned;
template <> struct make_unsigned<signed char> { typedef unsigned char type; };
template <> struct make_unsigned<short> { typedef unsigned short type; };
template <> struct make_unsigned<int> { typedef unsigned int type; };
template <> struct make_unsigned<long> { typedef unsigned long type; };
template <> struct make_unsigned<long long> { typedef unsigned long long type; };
template <> struct make_unsigned<unsigned char> { typedef unsigned char type; };
template <> struct make_unsigned<unsigned short> { typedef unsigned short type; };
template <> struct make_unsigned<unsigned int> { typedef unsigned int type; };
template <> struct make_unsigned<unsigned long> { typedef unsigned long type; };
template <> struct make_unsigned<unsigned long long> { typedef unsigned long long type; };
template <class T>
struct is_signed : integral_constant<bool, (T(-1) < T(0))> {};
}  // namespace std
)";

// plugin_sdk.hpp's element types, the one thing the headers take from the SDK.
constexpr const char *kPluginSdk = R"(#pragma once
#include <stdint.h>
namespace bp_plugin {
enum class boolean : uint8_t {};
enum class float16 : uint16_t {};
enum class bfloat16 : uint16_t {};
}
)";

}  // namespace

const FusedHeader *fused_headers() {
  static const FusedHeader headers[kFusedHeaderCount] = {
      {"backplane/kernels/elementwise.hpp", kElementwiseHeaderText},
      {"backplane/kernels/elementwise_ops.h", kElementwiseOpsHeaderText},
      {"backplane/kernels/op_table.h", kOpTableHeaderText},
      {"narrow_types.hpp", kNarrowTypesHeaderText},
      {"backplane/half.h", kHalfHeaderText},
      {"backplane/plugin_sdk.hpp", kPluginSdk},
      {"math.h", "#pragma once\n"},
      {"stdint.h", kStdint},
      {"type_traits", kTypeTraits},
  };
  return headers;
}

}  // namespace bp_cuda
