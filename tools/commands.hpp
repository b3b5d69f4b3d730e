// commands.hpp — the table of `bp` subcommands.
//
// Adding a subcommand: write cmd_<name>.cpp with an
// `int cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name),
// declare it below, add one line to kCommands in main.cpp and the file to
// BP_TOOL_SOURCES in CMakeLists.txt.
#pragma once

namespace bptool {

using CommandFn = int (*)(int argc, char **argv);

struct Command {
  const char *name;     // "devices"
  const char *summary;  // one line for `bp --help`
  CommandFn run;
};

int cmd_devices(int argc, char **argv);
int cmd_config(int argc, char **argv);
int cmd_tour(int argc, char **argv);
int cmd_bench(int argc, char **argv);

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the runtime or an operation failed
inline constexpr int kExitUsage = 2;    // bad subcommand, option or value

}  // namespace bptool
