#!/usr/bin/env python3
"""The live page (`collsim html --live`): collsim's CLI compiled to WebAssembly
(build-wasm/app/collsim-live.js, cmake/live.cmake) against the native CLI, then in a real
browser (tests/CMakeLists.txt registers it as the ctest `web_live`, labelled `web`).

1. Under node, as the page runs it (tests/web/live_cli.js): a set of commands — runs of a
   ring, a parameter server, a double binary tree on a ring topology, an all-to-all of i32,
   lessons 1 and 2, a hand-written schedule, explain, validate, a bad flag — must print what
   the native CLI prints (every line but the measured ones: the backend's thread count, the
   measured time and bandwidths) with the same exit status and error text; and
   `collsim html --data` must write the same page data (all but the measured clock and time).
2. In Debian's chromium (headless, Selenium): the live page of lesson 1 re-runs the ring at
   8 ranks from its form; the summary under the form equals the native CLI's for the same
   command line, the player then shows 8 ranks and steps through them; a bad rank count
   shows the CLI's own error; lesson 2 (several phases) re-runs at 6 ranks; the console
   stays free of errors.

Usage: test_live.py --collsim PATH --module collsim-live.js --source-dir DIR --work DIR
Exit 0 when every check held, 1 with the failures listed; it never skips (the ctest is only
registered where the build made the module).
"""
import argparse
import base64
import json
import re
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_page import check, console_errors, failures, key, make_driver, playhead  # noqa: E402

# Lines that differ between two runs on any machine: what was measured.
MEASURED = re.compile(r"^(backend auto: .*|  (backend|time|algbw|busbw)\s.*|.*measured.*)$")


def comparable(text):
    return "\n".join(line for line in text.splitlines() if not MEASURED.match(line))


# Progress on stderr ("lesson: 2/3 collectives verified; running phase 3 (...) ..."), shown
# only once a command has taken a second: there or not by the machine's load.
PROGRESS = re.compile(r"^.* \.\.\.$")


def without_progress(text):
    return "\n".join(line for line in text.splitlines() if not PROGRESS.match(line))


def native(collsim, source_dir, argv):
    r = subprocess.run([collsim] + argv, capture_output=True, text=True, cwd=source_dir)
    return {"status": r.returncode, "out": r.stdout.rstrip("\n"), "err": r.stderr.rstrip("\n")}


def in_node(module, source_dir, files, runs, read=()):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        raise SystemExit("FAILED: node is needed to run the WebAssembly CLI (Debian's emscripten brings nodejs)")
    spec = {"module": str(module), "root": str(source_dir), "files": files, "runs": runs, "read": list(read)}
    r = subprocess.run([node, str(Path(__file__).with_name("live_cli.js"))], input=json.dumps(spec),
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"FAILED: node live_cli.js exited {r.returncode}:\n{r.stdout}\n{r.stderr}")
    return json.loads(r.stdout)


def without_measured(data):
    """The page data with what was measured taken out: the measured clock of every view, and
    the caption texts only its frames show (page.cpp adds them after the other clocks')."""
    for view in data.get("views", []):
        view.get("clocks", {}).pop("measured", None)
        view["numbers"] = [n for n in view.get("numbers", []) if n["kind"] != "measured"]
        view.get("numbers_line", {}).pop("measured", None)
        used = -1
        for clock in view.get("clocks", {}).values():
            runs = clock["frames"]["runs"]["caption"]  # per run of states, its caption
            raw = base64.b64decode(runs["base64"])
            fmt = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I", "i32": "i"}[runs["type"]]
            values = struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw)
            used = max([used] + list(values))
        if "captions" in view:
            view["captions"]["texts"] = view["captions"]["texts"][:used + 1]
    return data


RUNS = [
    ["run", "--ranks", "8"],
    ["run", "--algorithm", "parameter_server", "--ranks", "4", "--servers", "2"],
    ["run", "--algorithm", "double_binary_tree", "--ranks", "6", "--topology", "ring"],
    ["run", "--collective", "all_to_all", "--ranks", "5", "--count", "3", "--dtype", "i32"],
    ["run", "scenarios/lessons/01_ring_allreduce.toml", "--ranks", "6", "--answers"],
    ["run", "scenarios/lessons/02_ring_vs_parameter_server.toml", "--answers"],
    ["run", "scenarios/exercises/ring_allreduce.toml"],
    ["explain", "--algorithm", "recursive_doubling", "--count", "8"],
    ["validate", "scenarios/lessons/12_ddp_resnet34.toml"],
    ["run", "--ranks", "0"],
    ["run", "scenarios/lessons/02_ring_vs_parameter_server.toml", "--count", "9"],
]
FILES = ["scenarios/lessons/01_ring_allreduce.toml", "scenarios/lessons/02_ring_vs_parameter_server.toml",
         "scenarios/lessons/12_ddp_resnet34.toml", "scenarios/exercises/ring_allreduce.toml",
         "scenarios/exercises/ring_allreduce.schedule.toml"]
DATA_RUNS = [
    ["html", "--ranks", "8", "--data", "--out", "/work/ring.json"],
    ["html", "scenarios/lessons/02_ring_vs_parameter_server.toml", "--ranks", "3", "--data", "--out", "/work/l2.json"],
]


def compare_with_native(collsim, module, source_dir, work):
    results = in_node(module, source_dir, FILES, RUNS + DATA_RUNS, read=["/work/ring.json", "/work/l2.json"])
    for argv, live in zip(RUNS, results):
        here = native(collsim, source_dir, argv)
        name = "collsim " + " ".join(argv)
        check(live["status"] == here["status"], f"{name}: exit {live['status']} in WebAssembly, {here['status']} native")
        same_out = comparable(live["out"]) == comparable(here["out"])
        same_err = without_progress(live["err"]) == without_progress(here["err"])
        check(same_out and same_err, f"{name}: prints what the native CLI prints (but the measured lines)")
        check("\r" not in live["err"], f"{name}: its stderr is whole lines (no line rewritten in place)")
        if not same_out:
            for a, b in zip(comparable(live["out"]).splitlines(), comparable(here["out"]).splitlines()):
                if a != b:
                    print(f"     wasm:   {a}\n     native: {b}")
                    break
        check(here["out"] or here["err"], f"{name}: the native CLI printed something to compare")
    for argv, live in zip(DATA_RUNS, results[len(RUNS):]):
        out = Path(work) / Path(argv[argv.index("--out") + 1]).name
        here_argv = argv[:argv.index("--out") + 1] + [str(out)]
        here = native(collsim, source_dir, here_argv)
        name = "collsim " + " ".join(argv)
        check(here["status"] == 0 and live["status"] == 0, f"{name}: writes the data (native {here['status']}, wasm {live['status']})")
        if here["status"] == 0 and live["status"] == 0:
            mine = without_measured(json.loads(live["files"][argv[argv.index("--out") + 1]]))
            theirs = without_measured(json.loads(out.read_text()))
            check(mine == theirs, f"{name}: the same page data as the native CLI's (all but the measured clock)")


def wait_for_run(driver, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        state = driver.execute_script("return document.getElementById('live-panel').dataset.state || '';")
        if state and state != "running":
            return state
        time.sleep(0.2)
    return "timeout"


def set_field(driver, name, value):
    e = driver.find_element("id", "live-" + name)
    e.clear()
    e.send_keys(value)


def check_live_page(collsim, source_dir, work, driver):
    from selenium.webdriver.common.keys import Keys
    page = Path(work) / "live_lesson1.html"
    lesson = "scenarios/lessons/01_ring_allreduce.toml"
    r = subprocess.run([collsim, "html", lesson, "--live", "--out", str(page)], capture_output=True, text=True, cwd=source_dir)
    check(r.returncode == 0, f"collsim html {lesson} --live: exit {r.returncode} {r.stderr.strip()}")
    driver.get(page.as_uri())
    driver.find_element("id", "live-run")
    check(console_errors(driver) == [], "live page: loads without console errors")
    command = driver.find_element("id", "live-command").text
    check(command == f"collsim run {lesson}", f"live page: the form starts from the page's own run ({command!r})")
    set_field(driver, "ranks", "8")
    command = driver.find_element("id", "live-command").text
    check(command == f"collsim run {lesson} --ranks 8", f"live page: the command line follows the form ({command!r})")
    driver.find_element("id", "live-run").click()
    state = wait_for_run(driver)
    check(state == "done", f"live page: --ranks 8 ran ({state}: {driver.find_element('id', 'live-status').text})")
    summary = driver.execute_script("return document.getElementById('live-summary').textContent;")
    here = native(collsim, source_dir, ["run", lesson, "--ranks", "8"])
    check(comparable(summary) == comparable(here["out"]) and "verified" in summary,
          "live page: its summary equals the native CLI's (steps, transfers, bytes, predicted time, verified)")
    subtitle = driver.find_element("id", "subtitle").text
    check("8 ranks" in subtitle and "14 steps" in subtitle, f"live page: the player shows the new run ({subtitle!r})")
    check(not summary.startswith("backend") and "CUDA" not in summary,
          f"live page: the summary does not open with the backend's note ({summary.splitlines()[:1]})")
    times = driver.execute_script("return [...document.querySelectorAll('#numbers p')].map(p => [p.dataset.kind, p.innerText]);")
    check(len(times) == 2 and times[0][0] == "predicted" and times[0][1].startswith("predicted ") and "8 ranks" in times[0][1]
          and times[1][0] == "measured" and "the simulation's own time" in times[1][1],
          f"live page: the new run's times lead with its prediction on 8 ranks, then the simulation's own ({times})")
    key(driver, Keys.HOME)
    key(driver, Keys.ARROW_RIGHT)
    ph = playhead(driver)
    check(ph["step"] == "1", f"live page: → steps the new run once ({ph})")
    check(driver.find_element("id", "playhead").text.endswith("/14"), "live page: the transport counts the new run's 14 steps")

    set_field(driver, "ranks", "0")
    driver.find_element("id", "live-run").click()
    state = wait_for_run(driver)
    shown = driver.execute_script("return document.getElementById('live-summary').textContent;")
    here = native(collsim, source_dir, ["run", lesson, "--ranks", "0"])
    check(state == "error" and shown == here["err"] and here["status"] == 2,
          f"live page: --ranks 0 shows the CLI's own error ({shown!r})")
    check("exit 2" in driver.find_element("id", "live-status").text, "live page: and its exit status 2")
    check("8 ranks" in driver.find_element("id", "subtitle").text, "live page: a refused run leaves the shown run alone")
    check(console_errors(driver) == [], "live page: no console errors after the runs")

    page2 = Path(work) / "live_lesson2.html"
    lesson2 = "scenarios/lessons/02_ring_vs_parameter_server.toml"
    r = subprocess.run([collsim, "html", lesson2, "--live", "--out", str(page2)], capture_output=True, text=True, cwd=source_dir)
    check(r.returncode == 0, f"collsim html {lesson2} --live: exit {r.returncode} {r.stderr.strip()}")
    driver.get(page2.as_uri())
    check(driver.find_elements("id", "live-algorithm") == [], "live lesson: the form offers no algorithm (the file's phases choose)")
    set_field(driver, "ranks", "6")
    driver.find_element("id", "live-run").click()
    state = wait_for_run(driver)
    summary = driver.execute_script("return document.getElementById('live-summary').textContent;")
    here = native(collsim, source_dir, ["run", lesson2, "--ranks", "6"])
    check(state == "done" and comparable(summary) == comparable(here["out"]),
          f"live lesson: --ranks 6 ran ({state}) and its summary equals the native CLI's")
    data = Path(work) / "lesson2_6.json"
    subprocess.run([collsim, "html", lesson2, "--ranks", "6", "--data", "--out", str(data)], check=True,
                   capture_output=True, cwd=source_dir)
    ranks = json.loads(data.read_text())["program"]["ranks"]  # 6 workers and the server
    subtitle = driver.find_element("id", "subtitle").text
    check(f"on {ranks} ranks" in subtitle, f"live lesson: the player shows the lesson's program on {ranks} ranks ({subtitle!r})")
    check(console_errors(driver) == [], "live lesson: no console errors")
    driver.save_screenshot(str(Path(work) / "live_lesson2.png"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    module = Path(a.module)
    if not module.is_file():
        raise SystemExit(f"FAILED: {module} is missing (the build's collsim_live target makes it)")
    compare_with_native(a.collsim, module, Path(a.source_dir), work)
    driver = make_driver("1280,900")
    try:
        check_live_page(a.collsim, a.source_dir, work, driver)
    finally:
        driver.quit()
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    print("\nall checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
