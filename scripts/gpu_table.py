#!/usr/bin/env python3
"""The figures of CudaBenchmark and gpu_bench.py side by side: gpu_table.py ONDEVICE.tsv PYTORCH.tsv.

Prints a Markdown table with the ratio OnDevice / PyTorch for rates (above 1: OnDevice is faster)
and PyTorch / OnDevice for times per op (likewise above 1: OnDevice is faster).
"""
import math
import sys


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and not line.startswith("#"):
                rows[parts[0]] = (float(parts[1]), parts[2])
    return rows


def main(ours_path, theirs_path):
    ours, theirs = read(ours_path), read(theirs_path)
    print("| figure | OnDevice | PyTorch | ratio (above 1: OnDevice faster) |")
    print("|---|---:|---:|---:|")
    for metric, (value, unit) in ours.items():
        other = theirs.get(metric, (math.nan, unit))[0]
        if math.isnan(other) or value == 0:
            ratio = math.nan
        elif unit.startswith("us"):
            ratio = other / value
        else:
            ratio = value / other
        print(f"| {metric} ({unit}) | {value:,.1f} | {other:,.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
