#!/bin/sh
# run_early_exit.sh DIST_TEST MPIRUN [FLAGS...]
#
# Rank 1 leaves the group and exits; rank 0's all_reduce must fail with
# BP_ERR_PEER within its timeout (dist_test.cpp, early_exit). Open MPI then
# ends the job its own way (rank 0 exits without finalising MPI, which would
# wait for rank 1; mpirun reports that and its status is not 0), so the
# verdict is the line rank 0 prints when every one of its checks passed.
program=$1
shift
out=$("$@" -np 2 "$program" early-exit 2 2>&1)
rc=$?
printf '%s\n' "$out"
case "$out" in
  *EARLY-EXIT-OK*) echo "passed: rank 0 reported BP_ERR_PEER in bounded time (mpirun's status: $rc)"; exit 0 ;;
esac
echo "FAILED: rank 0 did not report EARLY-EXIT-OK (mpirun's status: $rc)"
exit 1
