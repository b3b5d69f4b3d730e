// `bp check`: the conformance kit for Backplane plugins.
//
// Runs against any plugin binary (libbackplane-<name>.so) without rebuilding
// anything, in levels a plugin can claim (L0 load and ABI, L1 devices and
// memory, L2 numerics against the reference backend, L3 semantics, L4
// concurrency). Each group of checks runs in a child process (an exec of the
// running executable), so a crash is a failure of that group, not the end of
// the run. See docs/writing-a-plugin.md and `bp check --help`.
#pragma once

// argv[0] is "check"; the remaining arguments are those of `bp check`.
// Returns the process exit code: 0 when every group passed or was skipped.
int bp_check_main(int argc, char **argv);
