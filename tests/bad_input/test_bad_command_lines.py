#!/usr/bin/env python3
"""Bad command lines (issue 36, part 3): each case types one mistake a person makes on
`collsim` or `collsim-gui`, and checks what must always hold:

- exit status 2 and no crash; nothing on stdout;
- stderr matches the case's pattern, which names the flag (or word) and what was expected
  (a whole number, the commands, the nearest valid choice ...);
- none of the command-line parser's own phrases reach the user (RAW_PHRASES);
- nothing is written: every case runs in an empty folder, and the outputs it names there
  (page.html, out/, t.json, shot.png) do not appear.

Usage: test_bad_command_lines.py --collsim PATH --gui PATH --work DIR [--sanitize=KIND] [--show]
(--gui may be empty when the build has no app; --show prints every case's stderr.) Run by
ctest as `bad_command_lines`.
"""
import argparse
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

# CLI11's words (CLI/Error.hpp, CLI/Validators.hpp): a person should never read these.
RAW_PHRASES = ["Could not convert", "not expected", "is required", "not in range", "required INT", "required TEXT",
               "required FLOAT", "required UINT", "Expected exactly", "Expected at least", "At least", "At Most",
               "ValidationError", "ConversionError", "ArgumentMismatch", "Run with --help", "excludes", "requires"]

# (program, arguments, pattern stderr must match). The program is "collsim" or "gui".
CASES = [
    # Commands.
    ("collsim", ["frobnicate"], r"unknown command 'frobnicate' \(the commands: run, explain, bench,"),
    ("collsim", ["rnu"], r"unknown command 'rnu' .*did you mean run\?"),
    ("collsim", ["expalin", "--count", "8"], r"unknown command 'expalin' .*did you mean explain\?"),
    ("collsim", ["--frob"], r"^collsim: unknown flag --frob \(see collsim --help\)"),
    # Numbers typed wrong.
    ("collsim", ["run", "--ranks", "4.5"], r"collsim run: --ranks: a whole number, got '4\.5'"),
    ("collsim", ["run", "--ranks", "four"], r"collsim run: --ranks: a whole number, got 'four'"),
    ("collsim", ["run", "--ranks"], r"collsim run: --ranks needs a value: a whole number"),
    ("collsim", ["run", "--ranks", "--count", "4"], r"collsim run: --ranks: needs a value before --count"),
    ("collsim", ["run", "--ranks", "0"], r"--ranks must be between 1 and \d+ .*got 0"),
    ("collsim", ["run", "--ranks", "100000"], r"--ranks must be between 1 and \d+ .*got 100000"),
    ("collsim", ["run", "--bandwidth", "fast"], r"collsim run: --bandwidth: a number, got 'fast'"),
    ("collsim", ["run", "--latency", "-1"], r"--latency: must be >= 0, got -1"),
    ("collsim", ["run", "--count", "-5"], r"--count: '-5' is not a count \(a non-negative integer"),
    ("collsim", ["run", "--count", "1Q"], r"--count: '1Q' is not a count"),
    ("collsim", ["run", "--seed", "x"], r"--seed: 'x' is not an integer in 0 \.\. 2\^64-1"),
    ("collsim", ["run", "--root", "9"], r"--root must be a rank in 0\.\.3, got 9"),
    ("collsim", ["run", "--slices", "-1"], r"--slices must be between 1 and 1024 \(or 0"),
    ("collsim", ["run", "--timeout", "-3"], r"--timeout: a number of seconds from 0 to 86400, got '-3'"),
    ("collsim", ["bench", "-f", "1.5"], r"collsim bench: --stepfactor: a whole number, 0 or more, got '1\.5'"),
    ("collsim", ["bench", "-f", "1"], r"--stepfactor must be at least 2, got 1"),
    ("collsim", ["bench", "-b", "1G", "-e", "1K"], r"--minbytes \(1073741824\) must not exceed -e/--maxbytes"),
    ("collsim", ["bench", "--iters", "0"], r"--iters must be at least 1, got 0"),
    ("collsim", ["export-msccl", "--nchannels", "99"], r"--nchannels 99: 1 to 32 channels"),
    # Names typed wrong: the choices, or the nearest one.
    ("collsim", ["run", "--collective", "al_reduce"], r"--collective: unknown collective 'al_reduce'.*did you mean all_reduce\?"),
    ("collsim", ["run", "--algorithm", "rng"], r"--algorithm: unknown algorithm 'rng' for all_reduce \(available: ring,.*did you mean ring\?"),
    ("collsim", ["run", "--dtype", "f33"], r"--dtype: unknown data type 'f33' \(use f32 f64 f16 bf16 i32 i64\)"),
    ("collsim", ["run", "--op", "sun"], r"--op: unknown reduce op 'sun' \(use sum prod min max avg\).*did you mean sum\?"),
    ("collsim", ["run", "--backend", "gpuu"], r"--backend: unknown backend 'gpuu' \(use auto, cpu, cuda or mpi\)"),
    ("collsim", ["run", "--topology", "swich"], r"--topology: unknown topology 'swich' \(use switch .*did you mean switch\?"),
    ("collsim", ["run", "--link", "ethx"], r"--link: unknown link preset 'ethx' \(use nvlink4"),
    ("collsim", ["run", "--latency-rule", "sometimes"], r"--latency-rule: unknown rule 'sometimes' \(use message or delay\)"),
    ("collsim", ["run", "--late", "9=5"], r"--late 9=5: rank 9 is not one of the 4 ranks"),
    ("collsim", ["run", "--slow", "1=0"], r"--slow 1=0: must be > 0, got 0"),
    ("collsim", ["export-msccl", "--protocol", "slow"], r"--protocol: 'slow' is not one of MSCCL's protocols"),
    # Flags and files that do not belong.
    ("collsim", ["run", "--ot", "x"], r"collsim run: unknown flag --ot; did you mean --op\?"),
    ("collsim", ["run", "--chrome-trace", "t.json"], r"collsim run: unknown flag --chrome-trace.*did you mean --chrome\?"),
    ("collsim", ["list", "--nam"], r"collsim list: unknown flag --nam; did you mean --names\?"),
    ("collsim", ["explain", "--seed", "3"], r"collsim explain: unknown flag --seed"),
    ("collsim", ["run", "a.toml", "b.toml"], r"collsim run: unexpected 'b\.toml': it takes one scenario at most"),
    # What is missing.
    ("collsim", ["html", "-o", "page.html"], r"collsim html: --out is missing: the page to write .*did you mean --out\? -o is --op"),
    ("collsim", ["storyboard"], r"collsim storyboard: --out is missing: the folder to write"),
    ("collsim", ["calibrate"], r"collsim calibrate: --out is missing: the topology file to write"),
    ("collsim", ["convert"], r"collsim convert: which trace\? give one: a JSON trace"),
    ("collsim", ["validate"], r"collsim validate: which files\? give one"),
    ("collsim", ["run", "--trace="], r"collsim run: --trace needs a value after the '='"),
    # Outputs that cannot be written: said before anything runs.
    ("collsim", ["run", "--trace", "/nonexistent/dir/t.json"], r"--trace /nonexistent/dir/t\.json: the folder /nonexistent/dir does not exist"),
    ("collsim", ["bench", "--csv", "/nonexistent/x.csv"], r"--csv /nonexistent/x\.csv: the folder /nonexistent does not exist"),
    ("collsim", ["run", "no-such-lesson"], r"no-such-lesson: cannot read the scenario file"),
    # More memory than there is: refused before the work (the address space limited to 1.5 GB;
    # not under a sanitizer, whose shadow memory needs more address space than that).
    ("collsim", ["run", "--model-only", "--ranks", "4096", "-c", "all_to_all"],
     r"--model-only: this prediction needs \d\.\d+ GiB .*about 1\d(\.\d+)? M transfers.*more than the .* available "
     r"\(the address-space limit \(ulimit -v\)\)", {"address_space": 1500 << 20}),
    # Streamed (a ring whose chunks differ, so not predicted from one rank's transfers by
    # symmetry): a few batches of steps, about 0.5 GB at 65 536 ranks, not its 8.6 G
    # transfers' 900 GB; more than what is left of an address space of 400 MiB.
    ("collsim", ["run", "--model-only", "--ranks", "65536", "--count", "1000000"],
     r"--model-only: this prediction needs \d+\.\d+ MiB .*about 8\.\d+ G transfers predicted step by step.*more than the "
     r".* available", {"address_space": 400 << 20}),
    ("collsim", ["bench", "--model-only", "-n", "65536", "-b", "1000000", "-e", "1000000"],
     r"--model-only: this prediction needs \d+\.\d+ MiB .*predicted step by step.*more than the .* available",
     {"address_space": 400 << 20}),
    # Streamed whole steps: PAT's reduce-scatter with a late rank (no symmetry) holds its first
    # step of N^2/2 transfers, 134 M at 16 384 ranks (24 GB measured): refused, not swapped.
    ("collsim", ["run", "--model-only", "--ranks", "16384", "-c", "reduce_scatter", "-a", "pat", "--count", "256",
                 "--late", "3=1"],
     r"--model-only: this prediction needs \d+\.\d+ GiB .*predicted step by step.*more than the .* available",
     {"address_space": 8 << 30}),
    # The rank limits of --model-only: 65 536 where the algorithm streams, 4096 otherwise.
    ("collsim", ["run", "--model-only", "--ranks", "65537"], r"--ranks must be between 1 and 65536, got 65537"),
    ("collsim", ["run", "--model-only", "--ranks", "4097", "-a", "recursive_doubling"],
     r"--ranks must be between 1 and 4096 \(65536 for an algorithm that streams or is predicted from one node; `collsim list` marks them\), got 4097"),
    # A lesson on the model alone goes to 16 384 ranks (at counts its ranks_allowed admits), any
    # other to 1024; the exports and views, which show every transfer, stop at 1024.
    ("collsim", ["run", "lessons/22_scale", "--ranks", "32768"], r"--ranks 32768: must be between 1 and 16384"),
    ("collsim", ["run", "lessons/22_scale", "--ranks", "2000"], r"--ranks 2000: .*22_scale\.toml runs only at rank counts where .*ranks_allowed"),
    ("collsim", ["run", "lessons/01_ring_allreduce", "--ranks", "2048"],
     r"--ranks 2048: must be between 1 and 1024 \(16384 for a lesson that runs on the model alone\)"),
    ("collsim", ["run", "lessons/22_scale", "--ranks", "16384", "--trace", "t.json"],
     r"--trace, --chrome and --csv write every transfer of every phase, up to 1024 ranks; at 16384 ranks"),
    ("collsim", ["explain", "lessons/22_scale", "--ranks", "4096"],
     r"--ranks 4096: explain shows every step of every phase, up to 1024 ranks"),
    ("collsim", ["storyboard", "lessons/22_scale", "--ranks", "16384", "--out", "out"],
     r"--ranks 16384: the views show every transfer of every phase, up to 1024 ranks"),
    ("collsim", ["html", "lessons/22_scale", "--ranks", "2048", "--out", "page.html"],
     r"--ranks 2048: the views show every transfer of every phase, up to 1024 ranks"),
    ("gui", ["lessons/22_scale", "--ranks", "16384", "--screenshot", "shot.png"],
     r"--ranks 16384: the views show every transfer of every phase, up to 1024 ranks"),
    # An algorithm's own slices in the bench: only ':slices=S' after its name.
    ("collsim", ["bench", "--model-only", "--algorithms", "ring,nccl_tree:16"],
     r"--algorithms: 'nccl_tree:16': after the algorithm's name only ':slices=S' may follow"),
    # The app.
    ("gui", ["--scale", "9"], r"collsim-gui: --scale: a number from 0\.5 to 4 \(1\.5 on a projector\), got '9'"),
    ("gui", ["--scale", "big"], r"collsim-gui: --scale: a number from 0\.5 to 4"),
    ("gui", ["--frob"], r"collsim-gui: unknown flag --frob"),
    ("gui", ["--screenshot", "shot.png", "--size", "10x10"], r"collsim-gui: --size: '10x10' is not WIDTHxHEIGHT"),
    ("gui", ["a.toml", "b.toml"], r"collsim-gui: unexpected 'b\.toml': it takes one file at most"),
    ("gui", ["--phase", "1.5"], r"collsim-gui: --phase: a whole number, got '1\.5'"),
    ("gui", ["--step", "2", "--time", "5", "--screenshot", "shot.png"], r"collsim-gui: give --(step|time) or --(time|step), not both"),
    ("gui", ["--clock", "wall", "--screenshot", "shot.png"], r"--clock: unknown clock 'wall' \(use steps, measured or predicted\)"),
]

# What a case may not leave behind in its folder.
OUTPUTS = ["page.html", "out", "t.json", "shot.png", "x.csv"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collsim", required=True)
    parser.add_argument("--gui", default="")
    parser.add_argument("--work", required=True)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--sanitize", default="")
    a = parser.parse_args()
    programs = {"collsim": str(Path(a.collsim).resolve()), "gui": str(Path(a.gui).resolve()) if a.gui else ""}
    work = Path(a.work)
    failures, ran = [], 0
    for program, args, pattern, *extra in CASES:
        limits = extra[0] if extra else {}
        if not programs[program]:
            continue  # a build without the app: its cases have nothing to run
        if "address_space" in limits and a.sanitize:
            print(f"skip {' '.join(args)}: a sanitizer's shadow memory needs more address space than the case allows")
            continue
        preexec = None
        if "address_space" in limits:
            preexec = lambda: resource.setrlimit(resource.RLIMIT_AS, (limits["address_space"], limits["address_space"]))
        folder = work / f"case{ran}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        r = subprocess.run([programs[program], *args], cwd=folder, capture_output=True, text=True, timeout=120,
                           env={"PATH": "/usr/bin:/bin", "HOME": str(folder)},  # no DISPLAY: no window opens
                           preexec_fn=preexec)
        ran += 1
        label = f"{'collsim-gui' if program == 'gui' else 'collsim'} {' '.join(args)}"
        if a.show:
            print(f"{label}\n  -> {r.returncode}: {r.stderr.strip()}")
        problems = []
        if r.returncode != 2:
            problems.append(f"exit {r.returncode}, not 2")
        if r.stdout.strip():
            problems.append(f"stdout not empty: {r.stdout.strip()[:200]!r}")
        if not re.search(pattern, r.stderr, re.MULTILINE):
            problems.append(f"stderr does not match /{pattern}/")
        for phrase in RAW_PHRASES:
            if phrase in r.stderr:
                problems.append(f"the parser's phrase '{phrase}' reached the user")
        left = sorted(p.name for p in folder.iterdir())
        if left:
            problems.append(f"left files behind: {left}")
        if problems:
            failures.append(f"{label}: {'; '.join(problems)}\n    stderr: {r.stderr.strip()[:400]}")
        else:
            print(f"ok   {label}")
        shutil.rmtree(folder, ignore_errors=True)
    for f in failures:
        print(f"FAIL {f}")
    print(f"{ran - len(failures)} of {ran} bad command lines said what was expected (exit 2, nothing written)")
    if ran < 40:
        print(f"FAIL only {ran} cases ran: the corpus needs at least 40")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
