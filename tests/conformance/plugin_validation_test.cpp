// The plugin-table validator shared by the core's loader and `bp check`
// (core/loader/validation): what it accepts, and the precise reason for
// each table it rejects.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "bounded_read.hpp"
#include "plugin_validation.hpp"

namespace {

using namespace bp::plugin_validation;

const char *last_error() { return ""; }
bp_status init(const char *const *, const char *const *, int32_t) { return BP_OK; }
bp_status device_count(int32_t *, const char **) { return BP_OK; }
bp_status device_info(int32_t, bp_plugin_device_info *) { return BP_OK; }
bp_status alloc(int32_t, uint64_t, bp_buffer *) { return BP_OK; }
bp_status free_buffer(bp_buffer) { return BP_OK; }
bp_status write(bp_buffer, uint64_t, const void *, uint64_t) { return BP_OK; }
bp_status read(bp_buffer, uint64_t, void *, uint64_t) { return BP_OK; }
bp_status supports(int32_t, int32_t, int32_t, int32_t, int32_t *) { return BP_OK; }
bp_status execute(int32_t, int32_t, const bp_op_attrs *, const bp_plugin_tensor *, int32_t, const bp_plugin_tensor *) {
  return BP_OK;
}
bp_status synchronize(int32_t) { return BP_OK; }

// A complete, valid table of this ABI.
bp_plugin_api good_table() {
  bp_plugin_api api;
  std::memset(&api, 0, sizeof api);
  api.struct_size = sizeof api;
  api.abi_major = BP_PLUGIN_ABI_MAJOR;
  api.abi_minor = BP_PLUGIN_ABI_MINOR;
  api.name = "example";
  api.version = "0.1.0";
  api.device_prefix = "ex";
  api.last_error = last_error;
  api.init = init;
  api.device_count = device_count;
  api.device_info = device_info;
  api.alloc = alloc;
  api.free = free_buffer;
  api.write = write;
  api.read = read;
  api.supports = supports;
  api.execute = execute;
  api.synchronize = synchronize;
  return api;
}

const std::string kHostAbi = std::to_string(BP_PLUGIN_ABI_MAJOR) + "." + std::to_string(BP_PLUGIN_ABI_MINOR);

}  // namespace

TEST_CASE("a complete table of this ABI is accepted", "[validation]") {
  bp_plugin_api api = good_table();
  CHECK(validate_plugin_api(&api).empty());
  CHECK(abi_version(api) == kHostAbi);
  CHECK(newer_minor_note(api).empty());
}

TEST_CASE("a NULL table is the plugin refusing the host's ABI", "[validation]") {
  CHECK(validate_plugin_api(nullptr) == "bp_plugin_get_api returned NULL (the plugin refused host ABI " + kHostAbi + ")");
}

TEST_CASE("another ABI major and a short table are rejected, with the ABI the table gives", "[validation]") {
  bp_plugin_api api = good_table();
  api.abi_major = 99;
  CHECK(validate_plugin_api(&api) == "ABI major version 99 found, this core needs 1");
  api = good_table();
  api.struct_size = 32;
  CHECK(validate_plugin_api(&api) == "struct_size 32 is smaller than a version 1.0 table (" +
                                         std::to_string(BP_PLUGIN_API_SIZE_1_0) + " bytes); the table says ABI " +
                                         kHostAbi);
}

TEST_CASE("a NULL or empty version leaves the table usable but not conforming", "[validation]") {
  bp_plugin_api api = good_table();
  api.version = nullptr;
  CHECK(validate_plugin_api(&api).empty());
  CHECK(conformance_problem(api) == "version is NULL; it must point to the plugin's own version string (e.g. \"0.1.0\")");
  api.version = "";
  CHECK(validate_plugin_api(&api).empty());
  CHECK(conformance_problem(api) == "version is an empty string; it must be the plugin's own version (e.g. \"0.1.0\")");
}

TEST_CASE("names and prefixes: NULL, malformed and reserved ones are named", "[validation]") {
  bp_plugin_api api = good_table();
  api.name = nullptr;
  CHECK(validate_plugin_api(&api) == "backend name is NULL");
  api.name = "Bad Name";
  CHECK(validate_plugin_api(&api) == "backend name \"Bad Name\" is not made of [a-z0-9_-], 1 to 63 characters");
  api = good_table();
  api.device_prefix = nullptr;
  CHECK(validate_plugin_api(&api) == "device_prefix is NULL");
  api.device_prefix = "gpu";
  CHECK(validate_plugin_api(&api) == "device_prefix \"gpu\" is reserved (gpu, auto and default name devices of any backend)");
  CHECK(valid_backend_name("cpu-openblas_2"));
  CHECK_FALSE(valid_backend_name(""));
  CHECK_FALSE(valid_backend_name(std::string(64, 'a').c_str()));
}

TEST_CASE("the table's strings are read with a bound: unreadable, unterminated and overlong ones are named",
          "[validation]") {
  // Two pages, the second unreadable; text is `before` bytes of 'x' with no
  // NUL up to the unreadable page, which an unbounded read reaches and
  // faults on.
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  auto *pages = static_cast<char *>(mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(pages != MAP_FAILED);
  std::memset(pages, 'x', page);
  REQUIRE(mprotect(pages + page, page, PROT_NONE) == 0);
  auto unterminated = [&](size_t before) { return pages + page - before; };

  bp_plugin_api api = good_table();
  api.name = unterminated(0);
  CHECK(validate_plugin_api(&api) == "backend name points to memory this process cannot read");
  api.name = unterminated(10);
  CHECK(validate_plugin_api(&api) ==
        "backend name points to memory this process cannot read (after 10 bytes and no NUL)");
  api.name = unterminated(300);
  CHECK(validate_plugin_api(&api) ==
        "backend name \"" + std::string(64, 'x') + "...\" is not made of [a-z0-9_-], 1 to 63 characters");
  api = good_table();
  api.device_prefix = unterminated(3);
  CHECK(validate_plugin_api(&api) ==
        "device_prefix points to memory this process cannot read (after 3 bytes and no NUL)");
  api = good_table();
  api.version = unterminated(100);
  CHECK(validate_plugin_api(&api) == "version points to memory this process cannot read (after 100 bytes and no NUL)");
  api.version = reinterpret_cast<const char *>(uintptr_t(16));
  CHECK(validate_plugin_api(&api) == "version points to memory this process cannot read");
  // A version of 4095 bytes is one; 4096 without a NUL is not.
  const std::string longest(4095, 'v');
  api.version = longest.c_str();
  CHECK(validate_plugin_api(&api).empty());
  api.version = unterminated(page);
  CHECK(validate_plugin_api(&api) == "version \"" + std::string(64, 'x') + "...\" has no NUL within its first 4096 bytes");
  munmap(pages, 2 * page);
}

TEST_CASE("a NULL required entry is named", "[validation]") {
  bp_plugin_api api = good_table();
  api.execute = nullptr;
  CHECK(validate_plugin_api(&api) == "required entry 'execute' is NULL");
  api = good_table();
  api.copy = nullptr;  // optional
  CHECK(validate_plugin_api(&api).empty());
}

TEST_CASE("a table of a newer minor is accepted with a note that names both versions", "[validation]") {
  bp_plugin_api api = good_table();
  api.abi_minor = BP_PLUGIN_ABI_MINOR + 1;
  CHECK(validate_plugin_api(&api).empty());
  const std::string newer = std::to_string(BP_PLUGIN_ABI_MAJOR) + "." + std::to_string(BP_PLUGIN_ABI_MINOR + 1);
  CHECK(newer_minor_note(api) == "built for ABI " + newer + ", newer than this host's " + kHostAbi +
                                     ": the fields past " + kHostAbi + " are not used");
}

TEST_CASE("where process_vm_readv is refused, a pipe reads the same bytes and stops at the same fault",
          "[validation]") {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  auto *pages = static_cast<char *>(mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  REQUIRE(pages != MAP_FAILED);
  for (size_t i = 0; i < 2 * page; ++i) pages[i] = char(i * 7 + 1);
  REQUIRE(mprotect(pages + 2 * page, page, PROT_NONE) == 0);
  std::string got(2 * page, '\0');
  // Across the page boundary and longer than one write into the pipe.
  REQUIRE(read_through_pipe(got.data(), pages, 2 * page));
  CHECK(std::memcmp(got.data(), pages, 2 * page) == 0);
  std::string by_syscall(2 * page, '\0');
  REQUIRE(read_own(by_syscall.data(), pages, 2 * page));
  CHECK(got == by_syscall);
  char byte = 0;
  CHECK_FALSE(read_through_pipe(&byte, pages + 2 * page, 1));
  CHECK_FALSE(read_through_pipe(got.data(), pages + page, page + 1));
  CHECK_FALSE(read_through_pipe(&byte, reinterpret_cast<const void *>(uintptr_t(16)), 1));
  munmap(pages, 3 * page);
}
