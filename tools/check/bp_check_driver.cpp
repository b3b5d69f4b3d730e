// bp-check: `bp check` as an executable of its own (the same code as the
// `check` subcommand of `bp`). `bp-check ARGS` and `bp-check check ARGS` are
// the same; the second form is how it re-executes itself for each group.
#include <cstring>
#include <vector>

#include "check_command.hpp"

int main(int argc, char **argv) {
  const int first = argc > 1 && std::strcmp(argv[1], "check") == 0 ? 2 : 1;
  static char name[] = "check";
  std::vector<char *> args = {name};
  for (int i = first; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  return bp_check_main(int(args.size()) - 1, args.data());
}
