// main.cpp — `bp`, the Backplane command: looks up the subcommand in a table
// and runs it. Every failure that escapes a subcommand becomes a message on
// stderr and a non-zero exit status, never an abort.
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "backplane.hpp"
#include "check/check_command.hpp"
#include "commands.hpp"

namespace {

using bptool::Command;

// One line per subcommand; `bp --help` lists them in this order.
const Command kCommands[] = {
    {"devices", "list every device, its properties, and every plugin that was rejected", bptool::cmd_devices},
    {"config", "show the effective configuration, where each key came from, and the default device", bptool::cmd_config},
    {"tour", "run the device chapter (cpu, gpu(i), copies, mismatch errors) on this machine", bptool::cmd_tour},
    {"bench", "measure Backplane side by side with direct library calls", bptool::cmd_bench},
    {"check", "run the conformance kit on a plugin binary", bp_check_main},
};

void print_help(FILE *to) {
  std::fprintf(to,
               "usage: bp <subcommand> [options]\n"
               "\n"
               "Backplane %u.%u, a tensor runtime whose backends are plugins.\n"
               "\n"
               "subcommands:\n",
               bp_api_version() >> 16, bp_api_version() & 0xffffu);
  for (const Command &c : kCommands) std::fprintf(to, "  %-9s %s\n", c.name, c.summary);
  std::fprintf(to,
               "\n"
               "Run `bp <subcommand> --help` for its options.\n"
               "The configuration comes from the file named by BACKPLANE_CONFIG (else built-in\n"
               "defaults) and per-key environment variables; `bp config` shows the result.\n");
}

const Command *find(const char *name) {
  for (const Command &c : kCommands)
    if (std::strcmp(c.name, name) == 0) return &c;
  return nullptr;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    std::fprintf(stderr, "\nbp: missing subcommand\n");
    return bptool::kExitUsage;
  }
  const std::string first = argv[1];
  if (first == "--help" || first == "-h") {
    print_help(stdout);
    return bptool::kExitOk;
  }
  if (first == "--version") {
    std::printf("bp (Backplane) API %u.%u\n", bp_api_version() >> 16, bp_api_version() & 0xffffu);
    return bptool::kExitOk;
  }
  if (first == "help") {
    if (argc < 3) {
      print_help(stdout);
      return bptool::kExitOk;
    }
    const Command *c = find(argv[2]);
    if (!c) {
      std::fprintf(stderr, "bp: unknown subcommand '%s' (run `bp --help` for the list)\n", argv[2]);
      return bptool::kExitUsage;
    }
    char help[] = "--help";
    char *args[] = {argv[2], help, nullptr};
    return c->run(2, args);
  }
  const Command *c = find(argv[1]);
  if (!c) {
    if (first.rfind("-", 0) == 0)
      std::fprintf(stderr, "bp: unknown option '%s' (run `bp --help`)\n", argv[1]);
    else
      std::fprintf(stderr, "bp: unknown subcommand '%s' (run `bp --help` for the list)\n", argv[1]);
    return bptool::kExitUsage;
  }
  try {
    return c->run(argc - 1, argv + 1);
  } catch (const bp::Error &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "bp %s: error (%s): %s\n", c->name, bp_status_name(e.status()), e.what());
  } catch (const std::exception &e) {
    std::fflush(stdout);
    std::fprintf(stderr, "bp %s: error: %s\n", c->name, e.what());
  }
  return bptool::kExitFailure;
}
