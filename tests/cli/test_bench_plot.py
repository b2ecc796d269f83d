#!/usr/bin/env python3
"""`collsim bench --plot F.svg` (ctest: cli_bench_plot).

The SVG is parsed as XML and its parts counted by the classes app/storyboard/bench_plot_svg.h
promises: one <g class="series ..." data-series="ALGORITHM-KIND"> per algorithm and kind
(predicted only under --model-only; measured and predicted otherwise), one <g class="crossover
predicted|measured"> per change of the fastest algorithm in the crossover line the bench
printed, a 1280 x 800 viewBox and no text under 16 px; with --mpiexec, `bench --backend mpi`'s
plot has the MPI library's own collective as one more series ("MPI_Allreduce-native"). Bad --plot values exit 2 before any
measuring, naming --plot and the path, and leave no file.

  python3 tests/cli/test_bench_plot.py --collsim build/app/collsim --work /tmp/plot-test [--mpiexec /usr/bin/mpiexec]
"""
import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
failures = []


def check(ok, what):
    print(("  ok    " if ok else "  FAIL  ") + what)
    if not ok:
        failures.append(what)
    return ok


def run(collsim, *args):
    print("collsim " + " ".join(args))
    return subprocess.run([collsim, *args], capture_output=True, text=True, timeout=120)


def crossover_changes(stdout, clock):
    """How many times the fastest algorithm changes in '# crossover (clock): ...'."""
    m = re.search(r"# crossover \(" + clock + r"\): (.*)", stdout)
    if not m or m.group(1) == "no points":
        return 0
    return len(m.group(1).split("; ")) - 1


def check_svg(path, want_series, stdout, clocks):
    if not check(path.is_file(), f"{path.name} written"):
        return
    root = ET.parse(path).getroot()  # raises on malformed XML: the test fails
    check(root.tag == SVG + "svg", f"{path.name}: the root is <svg>")
    check(root.get("viewBox") == "0 0 1280 800", f"{path.name}: viewBox 0 0 1280 800 (got {root.get('viewBox')})")
    groups = list(root.iter(SVG + "g"))
    series = [g.get("data-series") for g in groups if "series" in (g.get("class") or "").split()]
    check(sorted(series) == sorted(want_series), f"{path.name}: series {sorted(want_series)} (got {sorted(series)})")
    for g in groups:
        classes = (g.get("class") or "").split()
        if "series" in classes:
            kind = g.get("data-series").rsplit("-", 1)[1]  # measured, predicted or native
            check(kind in classes, f"{path.name}: series {g.get('data-series')} has class {kind}")
            marks = [e for e in g if e.tag in (SVG + "circle", SVG + "polygon")]
            check(len(marks) > 0, f"{path.name}: series {g.get('data-series')} has markers")
    for clock in clocks:
        want = crossover_changes(stdout, clock)
        got = [g for g in groups if (g.get("class") or "").split() == ["crossover", clock]]
        check(len(got) == want, f"{path.name}: {want} {clock} crossover marker(s), as printed (got {len(got)})")
        for g in got:  # labelled, or (beyond three rows of labels) counted in a note
            texts = "".join(t.text or "" for t in g.iter(SVG + "text"))
            if not texts:
                check("more crossover" in ET.tostring(root, encoding="unicode"),
                      f"{path.name}: an unlabelled {clock} crossover is counted in a note")
                continue
            check(g.get("data-below") in texts and g.get("data-above") in texts,
                  f"{path.name}: the {clock} crossover names {g.get('data-below')} and {g.get('data-above')}")
    sizes = [float(t.get("font-size")) for t in root.iter(SVG + "text")]
    check(sizes and min(sizes) >= 16, f"{path.name}: every text at least 16 px (smallest {min(sizes) if sizes else None})")
    legend = [g for g in groups if g.get("class") == "legend-entry" and g.get("data-series")]
    check(sorted(g.get("data-series") for g in legend) == sorted(want_series), f"{path.name}: a legend entry per series")
    title = root.find(SVG + "title")
    check(title is not None and "ranks" in (title.text or ""), f"{path.name}: a <title> naming the ranks")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mpiexec", help="Open MPI's launcher, where collsim has the MPI backend")
    a = ap.parse_args()
    work = pathlib.Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)

    # A model-only sweep: predicted series only, and the crossover the bench printed.
    model = work / "model.svg"
    r = run(a.collsim, "bench", "--model-only", "-n", "8", "-b", "1K", "-e", "1M", "-a", "ring,double_binary_tree",
            "--topology", "switch", "--plot", str(model))
    check(r.returncode == 0, f"model-only: exit 0 (got {r.returncode}: {r.stderr.strip()})")
    check(crossover_changes(r.stdout, "predicted") >= 1, "model-only: the sweep has a predicted crossover to mark")
    check_svg(model, ["ring-predicted", "double_binary_tree-predicted"], r.stdout, ["predicted", "measured"])

    # A tiny measured bench on the CPU backend: measured and predicted per algorithm.
    measured = work / "measured.svg"
    r = run(a.collsim, "bench", "--backend", "cpu", "-n", "4", "-b", "1K", "-e", "8K", "-a", "ring,direct",
            "--iters", "1", "-w", "0", "--threads", "2", "--plot", str(measured), "--csv", str(work / "measured.csv"))
    check(r.returncode == 0, f"measured: exit 0 (got {r.returncode}: {r.stderr.strip()})")
    check_svg(measured, ["ring-measured", "ring-predicted", "direct-measured", "direct-predicted"], r.stdout,
              ["predicted", "measured"])
    check((work / "measured.csv").is_file(), "measured: --csv written beside --plot")

    # Bad --plot: exit 2 before any measuring, naming --plot and the path; no file left.
    for label, path in [("missing folder", work / "no-such-folder" / "p.svg"), ("not .svg", work / "p.png"),
                        ("no extension", work / "plot")]:
        r = run(a.collsim, "bench", "--backend", "cpu", "-n", "4", "-b", "1K", "-e", "1K", "--plot", str(path))
        check(r.returncode == 2, f"{label}: exit 2 (got {r.returncode})")
        check("--plot" in r.stderr and str(path) in r.stderr, f"{label}: the message names --plot and {path} ({r.stderr.strip()})")
        check("memcpy" not in r.stdout and "# algorithm" not in r.stdout, f"{label}: refused before measuring")
        check(not path.exists(), f"{label}: {path.name} not written")
    r = run(a.collsim, "bench", "--model-only", "--csv", str(work / "same.svg"), "--plot", str(work / "same.svg"))
    check(r.returncode == 2 and "--plot" in r.stderr and "--csv" in r.stderr, f"--plot = --csv: exit 2 ({r.stderr.strip()})")
    check(not (work / "same.svg").exists(), "--plot = --csv: nothing written")

    # --backend mpi under mpiexec: also the MPI library's own collective, one series.
    if a.mpiexec:
        mpi = work / "mpi.svg"
        print(f"mpiexec -n 4 collsim bench --backend mpi ... --plot {mpi}")
        r = subprocess.run([a.mpiexec, "--allow-run-as-root", "--oversubscribe", "--mca", "pml", "ob1", "--mca", "btl",
                            "self,vader", "-n", "4", a.collsim, "bench", "--backend", "mpi", "-n", "4", "-b", "1K", "-e", "4K",
                            "-a", "ring,direct", "--iters", "1", "-w", "0", "--plot", str(mpi)],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"mpi: exit 0 (got {r.returncode}: {r.stderr.strip()[:300]})")
        check_svg(mpi, ["ring-measured", "ring-predicted", "direct-measured", "direct-predicted", "MPI_Allreduce-native"],
                  r.stdout, ["predicted", "measured"])
    else:
        print("(no --mpiexec: the --backend mpi case is not run)")

    leftovers = [p.name for p in work.rglob("*") if ".tmp-" in p.name]
    check(not leftovers, f"no temporary files left ({leftovers})")
    if failures:
        print(f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    print("all bench --plot checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
