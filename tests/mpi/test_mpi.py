#!/usr/bin/env python3
"""The MPI backend under Open MPI's real launcher (tests/CMakeLists.txt registers it as the
ctest `mpi`, labelled `mpi`): `mpiexec -n N --oversubscribe collsim run --backend mpi …`.

1. Every collective × algorithm (`collsim list --names`) at N = 2..5 ranks, small sizes,
   verified (exit 0, "verified" on rank 0); a few types and ops; in place where allowed.
2. Once over TCP only (`--mca btl tcp,self`), the way traffic goes between nodes.
3. The merged trace of a run re-imports (`collsim convert`), records one process per rank
   with host and pid and a causality check that passed, and plays in the storyboard.
4. `collsim bench --backend mpi`: under each size a checked line for the MPI library's own
   collective (MPI_Allreduce, MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall,
   MPI_Bcast), and why there is none for f16.
5. Faults and bad input: a rank killed mid-run (COLLSIM_TEST_DIE_RANK) fails the run with a
   message naming it and no trace file; a job of the wrong size exits 2 with the reason on
   every rank; an unwritable --trace exits 2 once, before any transfer; without mpiexec
   more than one rank is refused with how to launch it, one rank runs.
6. Lessons: a lesson of several collectives (one on fewer ranks than the program) runs
   verified, rank 0 printing what the CPU backend prints, its trace with measured times;
   a job of the wrong size and --dump with a lesson are refused on every rank.
7. --dump: rank 0 writes every rank's input and output, byte for byte the CPU backend's
   for the same seed (in place, with a server, a rooted collective too); an unwritable
   folder exits 2 before any transfer.

Usage: test_mpi.py --collsim PATH --mpiexec PATH --work DIR
Exit 0 when every check held, 1 with the failures listed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

failures = []


# Seconds one mpirun may take: a lesson of hundreds of phases on 4 ranks takes a minute or
# two here, several times that in a sanitizer build (scripts/test's pass 4), where main()
# raises it.
LAUNCH_TIMEOUT = 120


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def launch(a, n, argv, env=None, mca=()):
    cmd = [a.mpiexec, "--allow-run-as-root", "--oversubscribe", *mca, "-n", str(n), a.collsim, *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT, env={**os.environ, **(env or {})})


# The sweep's launches name the shared-memory transport: Open MPI's default first probes UCX
# in every process, which made MPI_Init about half of each of the sweep's ~140 short runs
# (0.48 s against 0.26 s for 4 processes here, docs/performance.md). The other launches
# keep the default, as a user's mpirun would.
SHARED_MEMORY = ("--mca", "pml", "ob1", "--mca", "btl", "self,vader")


def sweep(a):
    names = subprocess.run([a.collsim, "list", "--names"], capture_output=True, text=True, check=True).stdout.split("\n")
    pairs = [line.split() for line in names if line.strip()]
    check(len(pairs) >= 30, f"collsim list --names gives {len(pairs)} algorithms")
    failed = []
    for collective, algorithm in pairs:
        for ranks in (2, 3, 4, 5):
            processes = ranks + 1 if algorithm == "parameter_server" else ranks  # one server rank by default
            r = launch(a, processes, ["run", "--backend", "mpi", "-c", collective, "-a", algorithm, "--ranks", str(ranks),
                                      "--count", "37", "-q"], mca=SHARED_MEMORY)
            if r.returncode != 0 or r.stdout.strip() != "verified":
                failed.append(f"{collective}/{algorithm} N={ranks}: exit {r.returncode} {r.stdout.strip()} {r.stderr.strip()[:300]}")
    check(not failed, f"every collective x algorithm at 2..5 ranks is verified on MPI ({len(pairs) * 4} runs)"
          + ("".join("\n       " + f for f in failed[:10])))
    for argv in (["-t", "i32", "-o", "max"], ["-t", "f16", "-o", "avg"], ["-t", "f64", "-o", "prod", "--in-place"],
                 ["-c", "all_gather", "--in-place"], ["-c", "reduce_scatter", "-a", "recursive_halving", "--in-place"],
                 ["--slices", "3"]):
        r = launch(a, 4, ["run", "--backend", "mpi", "--ranks", "4", "--count", "1000", "-q", *argv])
        check(r.returncode == 0 and r.stdout.strip() == "verified", f"mpi {' '.join(argv)}: verified ({r.stdout.strip()} {r.stderr.strip()[:200]})")


def tcp_and_trace(a, work):
    trace = work / "tcp.json"
    r = launch(a, 4, ["run", "--backend", "mpi", "--ranks", "4", "--count", "4K", "--trace", str(trace)],
               mca=("--mca", "btl", "tcp,self"))
    check(r.returncode == 0 and "result      verified" in r.stdout, f"TCP only (--mca btl tcp,self): verified ({r.stderr.strip()[:200]})")
    check("processes   4 on 1 host" in r.stdout and "causality   every receive ended after its send began" in r.stdout,
          "the summary says where the processes ran and that causality held")
    if not trace.exists():
        check(False, "the merged trace was written")
        return
    data = json.loads(trace.read_text())
    procs = data.get("processes", [])
    check([p["rank"] for p in procs] == [0, 1, 2, 3] and all(p["host"] and p["pid"] > 0 for p in procs),
          "the trace records one process per rank with its host and pid")
    check(data.get("backend", {}).get("name") == "mpi" and data.get("causality", {}).get("violations") == 0,
          "backend mpi, no causality violation recorded")
    records = data["records"]
    check(all(rec["measured_end_ns"] >= rec["measured_begin_ns"] for rec in records),
          "every transfer's measured end is at or after its begin on rank 0's clock")
    r = subprocess.run([a.collsim, "convert", str(trace), "--csv", str(work / "tcp.csv")], capture_output=True, text=True)
    check(r.returncode == 0 and "verified" in r.stdout, f"the merged trace re-imports: {r.stdout.strip()} {r.stderr.strip()}")
    again = work / "again.json"
    subprocess.run([a.collsim, "convert", str(trace), "--trace", str(again)], check=True, capture_output=True)
    check(again.read_text() == trace.read_text(), "export -> import -> export reproduces the merged trace exactly")
    board = work / "board"
    r = subprocess.run([a.collsim, "storyboard", str(trace), "--out", str(board)], capture_output=True, text=True)
    check(r.returncode == 0 and (board / "index.html").exists(), "the storyboard draws the merged trace")


def bench(a):
    for collective, algorithm, call in (("all_reduce", "ring", "MPI_Allreduce"), ("all_gather", "ring", "MPI_Allgather"),
                                        ("reduce_scatter", "ring", "MPI_Reduce_scatter_block"),
                                        ("all_to_all", "direct", "MPI_Alltoall"), ("broadcast", "chain", "MPI_Bcast")):
        r = launch(a, 4, ["bench", "--backend", "mpi", "-c", collective, "--algorithms", algorithm, "--ranks", "4",
                          "-b", "1K", "-e", "64K", "-f", "8", "--iters", "3", "--warmup", "1"])
        native = [line for line in r.stdout.splitlines() if line.startswith(f"#   {call} (the MPI library's own)")]
        ratios = [line for line in r.stdout.splitlines() if line.startswith("#   measured / predicted: ")]
        check(r.returncode == 0 and len(native) == 3 and all("#wrong 0" in line for line in native)
              and "# wrong output elements in all: 0 OK" in r.stdout
              and len(ratios) == 3 and all("predicted on the preset links" in line for line in ratios),
              f"bench --backend mpi -c {collective}: a checked {call} line and measured / predicted (on the preset links) "
              f"under each of 3 sizes ({r.stderr.strip()[:200]})")
    r = launch(a, 2, ["bench", "--backend", "mpi", "--ranks", "2", "-t", "f16", "-b", "1K", "-e", "1K", "--iters", "2"])
    check(r.returncode == 0 and "MPI_Allreduce: not compared (MPI has no f16 type)" in r.stdout,
          "bench --backend mpi -t f16: the MPI row says why it is missing")
    r = launch(a, 3, ["bench", "--backend", "mpi", "--ranks", "4", "-b", "1K", "-e", "1K"])
    check(r.returncode == 2 and "mpirun started 3 processes: give -np 4" in r.stderr, "bench: a job of the wrong size is refused")


def faults(a, work):
    trace, dump_dir = work / "die.json", work / "die-dump"
    for old in [*work.glob("die.json*"), *(dump_dir.glob("*") if dump_dir.exists() else [])]:
        old.unlink()
    r = launch(a, 4, ["run", "--backend", "mpi", "--ranks", "4", "--count", "4K", "--trace", str(trace), "--dump", str(dump_dir)],
               env={"COLLSIM_TEST_DIE_RANK": "2"})
    text = r.stdout + r.stderr
    check(r.returncode != 0, f"a rank killed mid-run fails the run (exit {r.returncode})")
    check("rank 2" in text, "the message names the rank that died")
    check(not trace.exists() and not list(work.glob("die.json*")), "and no trace file (or temporary) is left")
    check(not list(dump_dir.glob("*")), "and no dump file (or temporary) is left")

    # A rank that hangs (stopped, its connections open): --timeout ends the job, naming a
    # waiting rank and the transfer it waits for; nothing is written.
    stall_trace = work / "stall.json"
    start = time.monotonic()
    r = launch(a, 4, ["run", "--backend", "mpi", "--ranks", "4", "--count", "4K", "--timeout", "2", "--trace", str(stall_trace)],
               env={"COLLSIM_TEST_STALL_RANK": "2"})
    took = time.monotonic() - start
    errors = [line for line in r.stderr.splitlines() if "--timeout 2 s: none of its transfers moved" in line]
    check(r.returncode != 0 and errors and re.search(r"rank [013]: .* waits for transfer [0-9]+ \(step [0-9]+, rank [0-9] -> rank [0-9]", errors[0])
          and took < 30 and not stall_trace.exists(),
          f"a hung rank and --timeout 2: the job ends in {took:.1f} s (exit {r.returncode}), naming the rank and the "
          f"transfer it waits for, no trace ({errors[:1]})")

    r = launch(a, 3, ["run", "--backend", "mpi", "--ranks", "4", "-q"])
    lines = [line for line in r.stderr.splitlines() if line.startswith("collsim: error:")]
    check(r.returncode == 2 and len(lines) == 1 and "mpirun started 3 processes: give -np 4 or --ranks 3" in lines[0],
          f"-n 3 with --ranks 4: exit 2, the reason said once, by rank 0 ({lines})")

    r = launch(a, 4, ["run", "--backend", "mpi", "--ranks", "4", "-q", "--trace", str(work / "no-such-dir" / "t.json")])
    lines = [line for line in r.stderr.splitlines() if line.startswith("collsim: error:")]
    check(r.returncode == 2 and len(lines) == 1 and "--trace" in lines[0] and r.stdout == "",
          f"an unwritable --trace: exit 2, said once by rank 0, nothing run ({lines})")

    r = subprocess.run([a.collsim, "run", "--backend", "mpi", "--ranks", "4", "-q"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "launch it as mpirun -np 4 collsim run --backend mpi" in r.stderr,
          f"without mpiexec, 4 ranks: exit 2 with how to launch it ({r.stderr.strip()})")
    r = subprocess.run([a.collsim, "run", "--backend", "mpi", "--ranks", "1", "-q"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and r.stdout.strip() == "verified", f"without mpiexec, 1 rank runs ({r.stdout.strip()} {r.stderr.strip()})")


def without_backend_lines(text):
    """The report without what only a backend knows: its name and the measured table."""
    kept, in_measured = [], False
    for line in text.splitlines():
        if line.startswith("measured    "):
            in_measured = True
        elif in_measured and not line.startswith(" "):
            in_measured = False
        if not in_measured and not line.startswith(("backend", "  backend")):
            kept.append(line)
    return kept


def measured_rows(text):
    """The lesson's measured table: (phase, predicted us, measured us, ratio) per row."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("measured    ")), None)
    if start is None:
        return []
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith(" "):
            break
        fields = line.split()
        rows.append((int(fields[0]), float(fields[-3]), float(fields[-2]), float(fields[-1])))
    return rows


def lessons(a, work):
    # A lesson whose collectives run on fewer ranks than the program (4 workers, then 4 and
    # a server): the fifth process sits the ring out. Everything rank 0 prints but the
    # backend's name is what the CPU backend's run prints: the same model, the same checks.
    lesson = "scenarios/lessons/02_ring_vs_parameter_server.toml"
    trace = work / "lesson.json"
    cpu = subprocess.run([a.collsim, "run", lesson, "--backend", "cpu", "--answers", "--trace", str(trace)],
                         capture_output=True, text=True, timeout=LAUNCH_TIMEOUT)
    r = launch(a, 5, ["run", lesson, "--backend", "mpi", "--answers", "--trace", str(trace)])
    check(r.returncode == 0 and "result      verified: every output of 2 distinct collectives" in r.stdout,
          f"lesson 02 on 5 processes: both collectives verified ({r.stdout[-300:]} {r.stderr.strip()[:300]})")
    check(without_backend_lines(r.stdout) == without_backend_lines(cpu.stdout) and r.stdout.count("lesson:") == 1,
          "rank 0 alone prints the lesson, the same report as the CPU backend's")
    # Beside the predicted program, each collective's measured time against its prediction
    # alone (the CPU backend's clock is this computer's: no such table there).
    rows = measured_rows(r.stdout)
    check([row[0] for row in rows] == [1, 2] and all(
        p > 0 and m > 0 and abs(ratio - m / p) <= 0.01 * max(1.0, m / p) for _, p, m, ratio in rows),
        f"the lesson's measured table: phases 1 and 2, measured ÷ predicted as printed ({rows})")
    check("measured    " not in cpu.stdout, "no measured table on the CPU backend")
    if trace.exists():
        data = json.loads(trace.read_text())
        measured = [t for ph in data.get("phases", []) for t in ph.get("transfers", []) if t.get("measured_end_ns", 0) > 0]
        collectives = data.get("collectives", [])
        check(len(measured) > 0 and len(collectives) == 2 and all(
            c.get("backend") == "mpi" and c["verification"]["ok"] and c["verification"]["checked"] > 0 for c in collectives),
            f"the lesson trace: backend mpi, each collective verified, measured times ({len(measured)} transfers)")
    else:
        check(False, "the lesson trace was written")
    r = launch(a, 4, ["run", "scenarios/lessons/13_fsdp_resnet34.toml", "--backend", "mpi", "-q"])
    check(r.returncode == 0 and r.stdout.strip() == "verified",
          f"the FSDP lesson (reduce-scatters and all-gathers) is verified on 4 processes ({r.stdout.strip()} {r.stderr.strip()[:300]})")
    r = launch(a, 4, ["run", lesson, "--backend", "mpi", "-q"])
    lines = [line for line in r.stderr.splitlines() if line.startswith("collsim: error:")]
    check(r.returncode == 2 and len(lines) == 1
          and "the lesson has 5 ranks (4 and 1 servers) but mpirun started 4 processes: give -np 5 or --ranks 3" in lines[0],
          f"a lesson on a job of the wrong size: exit 2, the reason said once, by rank 0 ({lines})")
    r = launch(a, 5, ["run", lesson, "--backend", "mpi", "--dump", str(work / "lesson-dump")])
    check(r.returncode == 2 and "--dump writes one collective's buffers" in r.stderr, "a lesson with --dump is refused")


def dump(a, work):
    # Every process's buffers written by rank 0 are byte for byte what the CPU backend
    # writes for the same seed (the same schedule reduces in the same order).
    for argv, n in ((["--ranks", "4", "--count", "1000"], 4), (["--ranks", "3", "-c", "all_gather", "--in-place"], 3),
                    (["--ranks", "3", "-a", "parameter_server", "--count", "300"], 4),
                    (["--ranks", "4", "-c", "scatter", "--root", "2", "--count", "64"], 4)):
        mpi_dir, cpu_dir = work / "dump-mpi", work / "dump-cpu"
        for d in (mpi_dir, cpu_dir):
            for f in d.glob("*") if d.exists() else ():
                f.unlink()
        r = launch(a, n, ["run", "--backend", "mpi", "--seed", "7", "-q", "--dump", str(mpi_dir), *argv])
        c = subprocess.run([a.collsim, "run", "--backend", "cpu", "--seed", "7", "-q", "--dump", str(cpu_dir), *argv],
                           capture_output=True, text=True, timeout=LAUNCH_TIMEOUT)
        names = sorted(f.name for f in cpu_dir.glob("*.bin"))
        same = names == sorted(f.name for f in mpi_dir.glob("*.bin")) and all(
            (mpi_dir / name).read_bytes() == (cpu_dir / name).read_bytes() for name in names)
        check(r.returncode == 0 and c.returncode == 0 and len(names) > 0 and same,
              f"--dump on MPI {' '.join(argv)}: the {len(names)} files equal the CPU backend's ({r.stderr.strip()[:200]})")
    blocker = work / "a-file"
    blocker.write_text("not a folder")
    r = launch(a, 4, ["run", "--backend", "mpi", "--ranks", "4", "-q", "--dump", str(blocker / "dump")])
    lines = [line for line in r.stderr.splitlines() if line.startswith("collsim: error:")]
    check(r.returncode == 2 and len(lines) == 1 and "--dump" in lines[0] and r.stdout == "",
          f"an unwritable --dump folder: exit 2, said once by rank 0, nothing run ({lines})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--sanitize", default="", help="the build's COLLSIM_SANITIZE (empty: none)")
    a = ap.parse_args()
    global LAUNCH_TIMEOUT
    if a.sanitize:
        LAUNCH_TIMEOUT = 600
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(a.source_dir)
    for name, part in (("sweep", lambda: sweep(a)), ("tcp and trace", lambda: tcp_and_trace(a, work)),
                       ("bench", lambda: bench(a)), ("faults", lambda: faults(a, work)),
                       ("lessons", lambda: lessons(a, work)), ("dump", lambda: dump(a, work))):
        start = time.monotonic()
        part()
        print(f"-- {name}: {time.monotonic() - start:.1f} s", flush=True)
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
