#!/usr/bin/env python3
"""collsim's ring all-reduce on --backend mpi against the MPI library's own MPI_Allreduce
(bench/mpi_allreduce), in the same run: 64 MiB per rank, f32 sum, N = 2 and 4 processes,
over shared memory (Open MPI's default on one machine) and over TCP only (--mca btl
tcp,self). Each figure is the median busbw of five launches; collsim's comes from its
trace's summary (rank 0's clock, first send to last receive applied), MPI's from
mpi_allreduce's median iteration. Prints a Markdown table for docs/performance.md.

Usage: bench/mpi_ring.py BUILD_DIR [--count 16M] [--runs 5]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--count", default="16M")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    build = Path(a.build)
    collsim, reference = build / "app" / "collsim", build / "bench" / "mpi_allreduce"
    launch = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]
    print(f"load before: {os.getloadavg()[0]:.2f}")
    print("| N | transport | collsim ring busbw (GB/s) | MPI_Allreduce busbw (GB/s) | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (2, 4):
            for name, mca in (("shared memory", []), ("TCP only", ["--mca", "btl", "tcp,self"])):
                ours, theirs = [], []
                for _ in range(a.runs):
                    trace = Path(tmp) / "t.json"
                    subprocess.run(launch + mca + ["-np", str(n), str(collsim), "run", "--backend", "mpi", "--ranks", str(n),
                                                   "--count", a.count, "-q", "--trace", str(trace)], check=True,
                                   capture_output=True)
                    ours.append(json.loads(trace.read_text())["summary"]["busbw_gbps"])
                    out = subprocess.run(launch + mca + ["-np", str(n), str(reference), "--count", a.count],
                                         check=True, capture_output=True, text=True).stdout
                    theirs.append(float(out.strip().splitlines()[-1].split()[4]))
                o, t = statistics.median(ours), statistics.median(theirs)
                print(f"| {n} | {name} | {o:.2f} | {t:.2f} | {o / t:.2f} |", flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
