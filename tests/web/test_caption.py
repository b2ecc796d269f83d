#!/usr/bin/env python3
"""The page's caption is the app's (tests/CMakeLists.txt registers it as the ctest
`web_caption`, labelled `web` and `gui`).

For a ring all-reduce, a pipelined ring (4 slices: steps overlap on the time clocks) and a
parameter server (pushes queued at their workers), it writes a JSON trace with `collsim
run`, opens that trace in the page (`collsim html`, Debian's chromium, headless, through
Selenium) and in the desktop app (collsim-gui under xvfb-run, a script whose `print caption`
writes the app's caption line), and on every clock the trace has compares the caption the
page shows (`#caption`, without its "t = ..." on a time clock) with the app's: at the start,
after each → (the app's `step`) and at a quarter, a half and three quarters of every step.
The page's frames come from C++ (app/web/frames.h); the app draws ViewModel::frame itself.

Usage: test_caption.py --collsim PATH --gui PATH --xvfb-run PATH --source-dir DIR --work DIR
Exit 0 when every caption matched; 1 with the differences listed. Without chromium,
chromedriver, Selenium or xvfb-run it fails, naming what is missing: it never skips.
"""
import argparse
import base64
import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_page import make_driver  # noqa: E402  (one browser setup for the page's tests)

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(cmd, **kw):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout, r.stderr, sep="\n")
        raise SystemExit(f"FAILED: {' '.join(map(str, cmd))} exited {r.returncode}")
    return r.stdout


def column(col):
    """A page's typed column (docs/web.md, "The data format") as a list of numbers."""
    raw = base64.b64decode(col["base64"])
    fmt = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I", "i32": "i", "f32": "f", "f64": "d"}[col["type"]]
    return list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))


def positions(view, clock):
    """(what, t) pairs on `clock`: a quarter, a half and three quarters of every step, and
    the middles of up to 40 of the intervals between the frames' event times (where the
    frame changes: a packet leaves, one arrives), spread over the run."""
    c = view["clocks"][clock]
    done = column(c["step_done"])
    bounds = [c["start"]] + done
    out = []
    for k in range(len(done)):
        a, b = bounds[k], bounds[k + 1]
        if b <= a:
            continue
        for share in (0.25, 0.5, 0.75):
            out.append((f"{share:g} of step {k + 1}", a + share * (b - a)))
    times = column(c["frames"]["times"])
    gaps = [j for j in range(len(times) - 1) if times[j + 1] > times[j]]
    for j in gaps[:: max(1, len(gaps) // 40)]:
        out.append((f"between frame events {j} and {j + 1}", times[j] + (times[j + 1] - times[j]) / 2))
    return out


def page_caption(driver):
    text = driver.execute_script("return document.getElementById('caption').textContent;")
    return re.sub(r"^t = \S+ \S+  ", "", text)  # the page puts the time before the caption on a time clock


def app_captions(args, work, trace, actions):
    """The captions the app's `print caption` lines wrote, in order."""
    script = work / (trace.stem + ".actions.txt")
    script.write_text("\n".join(actions) + "\n")
    auth = work / "Xauthority"
    for attempt in range(3):  # xvfb-run itself fails now and then (a display number taken meanwhile)
        auth.write_text("")
        r = subprocess.run([args.xvfb_run, "-a", "-f", str(auth), "-s", "-screen 0 1280x800x24", args.gui, str(trace),
                            "--script", str(script)], capture_output=True, text=True, timeout=300)
        if "xvfb-run: error" not in r.stderr:
            break
    if r.returncode != 0:
        print(r.stdout, r.stderr, sep="\n")
        raise SystemExit(f"FAILED: collsim-gui {trace} --script {script} exited {r.returncode}")
    return [line[len("caption="):] for line in r.stdout.splitlines() if line.startswith("caption=")]


def compare(args, driver, work, name, trace):
    page = work / (name + ".html")
    data = work / (name + ".data.json")
    run([args.collsim, "html", trace, "--out", page])
    run([args.collsim, "html", trace, "--data", "--out", data])
    view = json.loads(data.read_text())["views"][0]
    clocks = [c for c in ("steps", "measured", "predicted") if c in view["clocks"]]
    check(clocks == ["steps", "measured", "predicted"], f"{name}: the trace has every clock ({clocks})")
    steps = view["steps"]

    # The same walk in the app (a script) and the page (collsimPlayer), one caption per stop.
    actions, stops = [], []
    driver.get(page.as_uri())
    driver.find_element("id", "caption")
    shown = []
    for clock in clocks:
        actions += [f"clock {clock}", "home", "print caption"]
        driver.execute_script(f"collsimPlayer.setClock('{clock}'); collsimPlayer.seek(-Infinity);")
        stops.append(f"{clock}: the start")
        shown.append(page_caption(driver))
        for k in range(1, steps + 1):
            actions += ["step", "print caption"]
            driver.execute_script("collsimPlayer.stepForward();")
            stops.append(f"{clock}: → {k}")
            shown.append(page_caption(driver))
        for what, t in positions(view, clock):
            actions += [f"seek-time {t!r}", "print caption"]
            driver.execute_script(f"collsimPlayer.seek({t!r});")
            stops.append(f"{clock}: {what} (t = {t!r})")
            shown.append(page_caption(driver))
    app = app_captions(args, work, trace, actions)
    check(len(app) == len(stops), f"{name}: the app printed a caption at each of the {len(stops)} stops (got {len(app)})")
    wrong = [(s, p, a) for s, p, a in zip(stops, shown, app) if p != a]
    for s, p, a in wrong[:10]:
        print(f"     {s}:\n       page: {p}\n       app:  {a}")
    check(not wrong and len(app) == len(stops),
          f"{name}: at all {len(stops)} stops on {len(clocks)} clocks the page's caption is the app's ({len(wrong)} differ)")
    check(len(set(shown)) > steps, f"{name}: the stops show {len(set(shown))} different captions")
    return shown if not wrong else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--gui", required=True)
    ap.add_argument("--xvfb-run", dest="xvfb_run", default="")
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    if not args.xvfb_run or not Path(args.xvfb_run).exists():
        raise SystemExit("FAILED: xvfb-run is needed to run the app without a display (scripts/setup installs xvfb)")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    src = Path(args.source_dir)

    traces = {
        "ring": ["run", src / "scenarios/ring_allreduce_4.toml", "--count", "4K"],
        "pipelined": ["run", "--algorithm", "ring", "--ranks", "4", "--slices", "4", "--count", "4K"],
        "ps": ["run", src / "scenarios/parameter_server_4.toml", "--count", "4K"],
    }
    driver = make_driver("1280,800")
    try:
        seen = {}
        for name, cmd in traces.items():
            trace = work / (name + ".json")
            run([args.collsim] + cmd + ["--trace", trace])
            seen[name] = compare(args, driver, work, name, trace)
        check(any("overlap (pipelined)" in s for s in seen["pipelined"]),
              "pipelined: some stop shows steps overlapping, in both")
        check(any(s.startswith("In step 1/") for s in seen["ps"]), "ps: the pushes' step is shown while pushes wait")
    finally:
        driver.quit()
    if failures:
        print(f"{len(failures)} check(s) FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
