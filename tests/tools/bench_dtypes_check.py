"""Checks the JSON lines of `bp bench --figure dtypes --json --size N` on stdin.

usage: bench_dtypes_check.py ELEMENTS GEMM_N

Every part is there (the add in three dtypes two ways, GEMM in three dtypes,
four conversions, the libtorch rows or their skip), each row with the goal
the issue states and a verdict that agrees with its ratio; a row with no
figure says why. Timings themselves are never checked.
"""
import json
import math
import re
import sys


def main():
    elements, n = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in sys.stdin if line.strip()]
    # The goals are cpu:0's; opencl:0's rows (the same params) have none.
    by_params = {r["params"]: r for r in rows if r["device"] == "cpu:0"}
    assert all(r["figure"] == "dtypes" for r in rows), rows

    wanted = {}
    for how in ("into an existing output (bp_binary_out)", "into a fresh output (bp_binary)"):
        wanted[f"add {elements} float32 {how}"] = None
        for dtype in ("bfloat16", "float16"):
            wanted[f"add {elements} {dtype} {how}"] = 1.6
    wanted[f"float32 n={n}"] = None
    for dtype in ("bfloat16", "float16"):
        wanted[f"{dtype} n={n}"] = 0.9
        wanted[f"convert {elements} float32 -> {dtype}"] = 0.8
        wanted[f"convert {elements} {dtype} -> float32"] = 0.8
    for params, target in wanted.items():
        assert params in by_params, f"no row {params!r} in {sorted(by_params)}"
        assert by_params[params]["target"] == target, (params, by_params[params]["target"], target)

    torch = [r for r in rows if "libtorch" in r["baseline_name"]]
    assert torch, "no libtorch row (measured or skipped)"

    for r in rows:
        ratio, target, met = r["ratio"], r["target"], r["target_met"]
        if target is None or ratio is None:
            assert met is None, r
        else:
            assert met == (ratio >= target), r
        if target is not None:
            verdict = {True: "met", False: "NOT met", None: "not measured"}[met]
            assert r["note"].startswith(f"target >= {target:g}x: {verdict}"), r
        measured = r["backplane"] is not None and math.isfinite(r["backplane"]) and r["backplane"] > 0
        assert measured or "failed: " in r["note"] or "skipped: " in r["note"], f"no figure and no reason: {r}"
        # Backplane's half GEMM rows name the plugin's path for their dtype
        # and the conversion instructions, which depend on the CPU
        # (libtorch's rows name libtorch's build instead).
        if r["params"].startswith(("bfloat16 n=", "float16 n=")) and "libtorch" not in r["baseline_name"]:
            path = "(convert-to-f32\\+cblas_sgemm|onednn:[^ ]+)" if r["params"].startswith("b") \
                else "convert-to-f32\\+cblas_sgemm"
            assert re.search(r"path: " + path + r" \(conversions: (avx512f|avx2\+f16c|scalar)\)",
                             r["note"]), r
    print(f"{len(rows)} rows checked")


if __name__ == "__main__":
    main()
