// bp-bench-mpi — the baseline of `bp bench --figure allreduce`, a program of
// its own because it must run as the ranks of an MPI launch (bp is one
// process, and never links MPI). bp bench runs it as
//
//   mpirun -np 2 bp-bench-mpi --trials N --target SECONDS [--mb 4,16,64,256]
//
// and reads one JSON object per size from rank 0's standard output:
//
//   {"mb": 4, "ranks": 2, "backplane_ms": 1.9, "baseline_ms": 1.8, "backplane_spread": 1.1,
//    "baseline_spread": 1.2, "path": "all_reduce sum float32 [1048576]: rank 0 of 2 ...",
//    "library": "Open MPI v4.1.4, ..."}
//
// Each size times bp_dist_all_reduce(SUM) of a float32 cpu:0 tensor against
// MPI_Allreduce, in place, on a plain host buffer of the same size, in the
// same run with the same timing (timing.hpp). The program initialises MPI
// itself, as an application that also calls MPI would, so bp_dist_init
// joins it and leaves finalising to the program.
//
// Rank 0 runs compare() and every other rank must run the same collectives
// the same number of times: before each batch rank 0 broadcasts which side
// and how many repetitions (one small broadcast per batch, on both sides
// alike), and the others follow until told to stop.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backplane.hpp"
#include "pair_json.hpp"
#include "timing.hpp"

namespace {

using bptool::bench::Work;

int usage(const char *why) {
  std::fprintf(stderr,
               "bp-bench-mpi: %s\nusage: mpirun -np N bp-bench-mpi --trials N --target SECONDS [--mb 4,16,64,256]\n",
               why);
  return 2;
}

std::vector<int64_t> parse_sizes(const char *list) {
  std::vector<int64_t> sizes;
  for (const char *p = list; *p;) {
    char *end = nullptr;
    const long long mb = std::strtoll(p, &end, 10);
    if (end == p || mb <= 0) return {};
    sizes.push_back(mb);
    p = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') return {};
  }
  return sizes;
}

// Rank 0's side of the protocol: tell the others, then do the same.
Work leading(const Work &w, int64_t side) {
  return [&w, side](int64_t k) {
    int64_t command[2] = {side, k};
    MPI_Bcast(command, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    w(k);
  };
}

void follow(const Work *sides) {
  for (;;) {
    int64_t command[2] = {0, 0};
    MPI_Bcast(command, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (command[0] < 0) return;
    sides[command[0]](command[1]);
  }
}

void stop_followers() {
  int64_t command[2] = {-1, 0};
  MPI_Bcast(command, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
}

// The routing trace's line for one bp_dist_all_reduce of t.
std::string path_of(const bp::Tensor &t) {
  bp::check(bp_trace_clear());
  bp::check(bp_trace_enable(1));
  bp::check(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM));
  bp::check(bp_trace_enable(0));
  char line[512] = "";
  if (bp_trace_count() > 0) bp::check(bp_trace_line(bp_trace_count() - 1, line, sizeof line));
  return line;
}

}  // namespace

int main(int argc, char **argv) {
  int trials = 0;
  double target = 0;
  std::vector<int64_t> sizes = {4, 16, 64, 256};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--trials")) trials = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--target")) target = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--mb")) sizes = parse_sizes(argv[i + 1]);
    else return usage((std::string("unknown argument ") + argv[i]).c_str());
  }
  if (argc % 2 == 0) return usage("every option takes a value");
  if (trials < 1 || !(target > 0) || sizes.empty())
    return usage("--trials must be >= 1, --target > 0, --mb a list of sizes in MB");

  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  MPI_Get_library_version(library, &length);
  library[std::strcspn(library, "\n")] = '\0';

  int rc = 0;
  try {
    bp::dist::init();
    for (int64_t mb : sizes) {
      const int64_t count = mb * (int64_t(1) << 20) / int64_t(sizeof(float));
      // Zeros: a sum of zeros stays zero, so repetitions never reach inf.
      const bp::Tensor t = bp::zeros({count}, bp::f32, bp::cpu());
      std::vector<float> plain(size_t(count), 0.0f);
      const Work through_bp = [&t](int64_t k) {
        for (int64_t i = 0; i < k; ++i) bp::check(bp_dist_all_reduce(t.handle(), BP_REDUCE_SUM));
      };
      const Work direct = [&plain, count](int64_t k) {
        for (int64_t i = 0; i < k; ++i)
          MPI_Allreduce(MPI_IN_PLACE, plain.data(), int(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      };
      const std::string path = path_of(t);
      if (rank != 0) {
        const Work sides[2] = {through_bp, direct};
        follow(sides);
        continue;
      }
      const bptool::bench::Pair p =
          bptool::bench::compare(leading(through_bp, 0), leading(direct, 1), trials, target);
      stop_followers();
      nlohmann::json row = bptool::bench::pair_ms_json(p);
      row.update({{"mb", mb}, {"ranks", ranks}, {"path", path}, {"library", library}});
      std::printf("%s\n", row.dump().c_str());
      std::fflush(stdout);
    }
    bp::dist::finalize();
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bp-bench-mpi: rank %d: %s\n", rank, e.what());
    rc = 1;
    // The other ranks may wait in a collective that will not come.
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
