// The safetensors format's fixed parts (github.com/huggingface/safetensors):
// its dtype codes and what Backplane calls them, its limits, and the
// contents of a checked header. The reader (header.cpp) and the writer
// (writer.cpp) share these; backplane.h's "saving and loading" section is
// the contract they implement.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backplane/types.h"

namespace bp::core::safetensors {

// The header length's own 8 bytes, little-endian.
inline constexpr uint64_t kLengthBytes = 8;
// The longest header the `safetensors` package reads (its MAX_HEADER_SIZE):
// a larger one is refused before any of it is read.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;
// The reserved name of the header's string map.
inline constexpr std::string_view kMetadataKey = "__metadata__";

// The format's code of each Backplane dtype, or nullptr for none.
const char *code_of(int32_t dtype);
// The Backplane dtype of a format code, or BP_DTYPE_INVALID.
int32_t dtype_of(std::string_view code);
// Whether the format defines this code although Backplane has no dtype for
// it (U16, F8_E4M3, C64, ...): the message then says so instead of
// "unknown".
bool defined_elsewhere(std::string_view code);
// The codes Backplane reads, "F64, F32, ..., BOOL", for messages.
std::string codes_read();

bool valid_utf8(std::string_view text);
// Text from a file or a caller as a message shows it: bounded (echo), and
// with control characters and bytes that are not UTF-8 as \xNN, so a
// message is always printable UTF-8.
std::string shown(std::string_view text, size_t max = 64);

// One tensor of a checked file: offsets into the data, which starts right
// after the header.
struct Entry {
  std::string name;
  int32_t dtype = BP_DTYPE_INVALID;
  int32_t rank = 0;
  int64_t shape[BP_MAX_RANK] = {};
  uint64_t begin = 0, end = 0;
};

// A checked header: the tensors in the byte order of their names, the
// metadata in the byte order of its keys, and where the data starts in the
// file (8 + the header's length).
struct Contents {
  std::vector<Entry> entries;
  std::vector<std::pair<std::string, std::string>> metadata;
  uint64_t data_start = 0;
};

}  // namespace bp::core::safetensors
