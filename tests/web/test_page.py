#!/usr/bin/env python3
"""The web page (`collsim html`) in a real browser: Debian's chromium, headless, driven by
Selenium (tests/CMakeLists.txt registers it as the ctest `web_page`, labelled `web`).

For a ring, a parameter server, a double binary tree and an all-to-all it writes a page and
a storyboard of the same trace, loads the page, and checks what a student would do and see:
the keys move the playhead, the caption is the view model's, every buffer cell's contents at
step k equal the storyboard's at step k (the C++ buffer history, read by another code path),
scrubbing and the clocks work, play plays, a question's answer is hidden until clicked and
equals `collsim run --answers`; and the browser's console stays free of errors. Beyond the
DOM limit (a ring of about 33 000 cells) the canvas paints pixel columns and the keys still work; the
data is of format version 5 (typed columns and frame tables, docs/web.md); collsimPlayer.load(text) starts
over without binding a listener twice, and shows another page's data.

Usage: test_page.py --collsim PATH --source-dir DIR --work DIR
Exit 0 when every check held; 1 with the failures listed. Without chromium, chromedriver or
Selenium it fails too, naming what is missing (scripts/setup installs them): it never skips.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr, sep="\n")
        raise SystemExit(f"FAILED: {' '.join(map(str, cmd))} exited {r.returncode}")
    return r.stdout


def storyboard_cells(svg_path):
    """(rank, buffer, cell) -> the ranks it holds, as the storyboard drew step k."""
    text = Path(svg_path).read_text()
    cells = {}
    for m in re.finditer(r'<g class="cell" data-rank="(\d+)" data-buffer="(\w+)" data-cell="(\d+)" [^>]*data-holds="([^"]*)"', text):
        cells[(m.group(1), m.group(2), m.group(3))] = m.group(4)
    return cells


def page_cells(driver):
    return {(c["rank"], c["buffer"], c["cell"]): c["holds"] for c in driver.execute_script(
        "return [...document.querySelectorAll('#buffers .cell')].map(g => ({rank: g.dataset.rank, buffer: g.dataset.buffer,"
        " cell: g.dataset.cell, holds: g.dataset.holds}));")}


def playhead(driver):
    return driver.execute_script("return Object.assign({}, document.getElementById('playhead').dataset);")


def key(driver, name, times=1):
    from selenium.webdriver.common.action_chains import ActionChains
    for _ in range(times):
        ActionChains(driver).send_keys(name).perform()


def console_errors(driver):
    return [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def make_driver(size):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise SystemExit("FAILED: python3-selenium is not installed (scripts/setup installs it)")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if not browser or not driver_path:
        raise SystemExit("FAILED: chromium and chromedriver are needed (scripts/setup installs chromium and chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={size}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=options)


def check_page(driver, name, page, board, steps):
    from selenium.webdriver.common.keys import Keys
    driver.get(page.as_uri())
    driver.find_element("id", "playhead")
    check(console_errors(driver) == [], f"{name}: the page loads without console errors")
    ph = playhead(driver)
    check(ph["step"] == "0" and ph["clock"] == "steps", f"{name}: it opens at the start, on the steps clock ({ph})")
    key(driver, Keys.END)
    check(playhead(driver)["done"] == str(steps), f"{name}: End: all {steps} steps done")
    key(driver, Keys.HOME)
    check(playhead(driver)["done"] == "0", f"{name}: Home: back to the start")
    # Step by step with →: every cell holds what the storyboard's frame k shows.
    for k in range(0, steps + 1):
        if k > 0:
            key(driver, Keys.ARROW_RIGHT)
        ph = playhead(driver)
        expected = storyboard_cells(board / f"step-{k:02d}.svg")
        shown = page_cells(driver)
        # The storyboard leaves out the inputs (they never change); every other cell is in both.
        missing = [c for c in expected if c not in shown] + [c for c in shown if c not in expected and c[1] != "input"]
        wrong = [(c, shown[c], expected[c]) for c in expected if c in shown and shown[c] != expected[c]]
        check(ph["done"] == str(k) and not missing and not wrong and len(expected) > 0,
              f"{name}: → {k}: {len(expected)} cells equal the storyboard's step {k}"
              + (f" (missing {missing[:3]}, wrong {wrong[:3]})" if missing or wrong else ""))
    key(driver, Keys.ARROW_LEFT)
    check(playhead(driver)["done"] == str(steps - 1), f"{name}: ← steps back to {steps - 1}")
    # Scrub to half-way through step 2: in flight, and the caption says so.
    if steps >= 2:
        driver.execute_script("const s = document.getElementById('scrub'); s.value = 1.5; s.dispatchEvent(new Event('input'));")
        ph = playhead(driver)
        caption = driver.find_element("id", "caption").text
        check(ph["t"] == "1.5" and ph["step"] == "2", f"{name}: scrubbing to 1.5 shows step 2 ({ph})")
        check(caption.startswith("In step 2/") and int(ph["flying"]) + int(ph["queued"]) > 0,
              f"{name}: the caption is step 2's, with packets moving: '{caption[:60]}'")
        packets = driver.execute_script("return document.querySelectorAll('#packets .packet').length;")
        check(packets > 0, f"{name}: {packets} packets drawn")
    # Another clock keeps the step position.
    clocks = driver.execute_script("return [...document.querySelectorAll('#clock option')].map(o => o.value);")
    if "predicted" in clocks:
        key(driver, Keys.HOME)
        key(driver, Keys.ARROW_RIGHT)
        driver.execute_script("const s = document.getElementById('clock'); s.value = 'predicted'; s.dispatchEvent(new Event('change'));")
        ph = playhead(driver)
        check(ph["clock"] == "predicted" and ph["done"] == "1", f"{name}: the predicted clock keeps the step ({ph})")
        driver.execute_script("const s = document.getElementById('clock'); s.value = 'steps'; s.dispatchEvent(new Event('change'));")
    # Space plays, space pauses.
    key(driver, Keys.HOME)
    key(driver, " ")
    time.sleep(1.2)
    key(driver, " ")
    t = float(playhead(driver)["t"])
    check(t > 0.2, f"{name}: space plays (t = {t:.2f} after 1.2 s) and pauses")
    check(console_errors(driver) == [], f"{name}: no console errors after all that")


def phase_item(driver, k):
    return driver.find_element("css selector", f'#phases li[data-phase="{k}"]')


def check_lessons(driver, collsim, src, work):
    """Lessons 2 and 12: the phase list, the program, moving through the phases, a compute card."""
    from selenium.webdriver.common.keys import Keys
    l2 = work / "lesson2.html"
    run([collsim, "html", str(src / "scenarios/lessons/02_ring_vs_parameter_server.toml"), "--out", str(l2)])
    driver.get(l2.as_uri())
    check(console_errors(driver) == [], "lesson 2: loads without console errors")
    items = driver.find_elements("css selector", "#phases li")
    ph = playhead(driver)
    check(len(items) == 2 and ph["phase"] == "1" and ph["phases"] == "2", f"lesson 2: two phases listed, the first shown ({ph})")
    check(ph["clock"] == "predicted", "lesson 2: opens on its clock, predicted")
    key(driver, Keys.END)
    key(driver, Keys.ARROW_RIGHT)
    ph = playhead(driver)
    check(ph["phase"] == "2" and ph["done"] == "0", f"lesson 2: → at phase 1's end goes on to phase 2, at its start ({ph})")
    key(driver, Keys.ARROW_LEFT)
    ph = playhead(driver)
    check(ph["phase"] == "1" and ph["done"] == "6", f"lesson 2: ← at phase 2's start goes back to phase 1, at its end ({ph})")
    check("Phase 1: ring all-reduce" in driver.find_element("id", "phase-caption").text, "lesson 2: the phase's caption names it")
    # The lesson's description, its "Try" suggestions a list (issue 34): each line rendered from
    # the run under the change ("--ranks 8: ..."), as the CLI prints it.
    about = driver.find_element("id", "about")
    tries = [li.text for li in about.find_elements("css selector", "li")]
    check(not driver.find_element("id", "about-panel").get_attribute("hidden") and "What to look for" in about.text,
          "lesson 2: the page shows its description")
    check(len(tries) >= 1 and tries[0].startswith("--ranks 8: ") and "{" not in tries[0],
          f"lesson 2: its suggestions are a list, rendered ({tries[:1]})")
    # --ranks re-runs every phase with 8 workers, as `collsim run --ranks` does.
    l2_8 = work / "lesson2-8.html"
    run([collsim, "html", str(src / "scenarios/lessons/02_ring_vs_parameter_server.toml"), "--ranks", "8", "--out", str(l2_8)])
    driver.get(l2_8.as_uri())
    ranks = driver.execute_script("return document.querySelectorAll('#scene .rank').length;")
    check(ranks == 8, f"lesson 2 --ranks 8: the ring's scene has 8 ranks ({ranks})")
    l12 = work / "lesson12.html"
    out = run([collsim, "html", str(src / "scenarios/lessons/12_ddp_resnet34.toml"), "--out", str(l12)])
    check("164 phases" in out, "lesson 12: collsim html writes its 164 phases")
    driver.get(l12.as_uri())
    check(len(driver.find_elements("css selector", "#phases li")) == 164, "lesson 12: 164 phases listed")
    driver.execute_script("arguments[0].scrollIntoView();", phase_item(driver, 128))
    phase_item(driver, 128).click()
    key(driver, Keys.ARROW_RIGHT, 3)
    ph = playhead(driver)
    words = driver.find_element("id", "file-caption").text
    check(ph["phase"] == "128" and ph["done"] == "3", f"lesson 12: a click shows phase 128, → three steps ({ph})")
    check(re.match(r"rank 0 sends [0-9.]+ MiB of bucket 2 to rank 1", words), f"lesson 12: the step's narration: '{words[:50]}'")
    driver.execute_script("arguments[0].scrollIntoView();", phase_item(driver, 123))
    phase_item(driver, 123).click()
    bars = driver.execute_script("return document.querySelectorAll('#scene .compute-bar').length;")
    text = driver.find_element("id", "playhead").text
    check(bars == 4 and "compute" in text and not driver.find_element("id", "buffers-panel").is_displayed(),
          f"lesson 12: phase 123 is a compute card of 4 bars ('{text}')")
    key(driver, Keys.ARROW_RIGHT)
    check(playhead(driver)["phase"] == "124", "lesson 12: → from a compute phase goes on to the next phase")
    check(console_errors(driver) == [], "lesson 12: no console errors")
    driver.save_screenshot(str(work / "lesson12.png"))
    # Lesson 22 runs on the model alone ([run] model_only): its page plays the predicted steps
    # and says so, not "NOT verified".
    l22 = work / "lesson22.html"
    run([collsim, "html", str(src / "scenarios/lessons/22_scale.toml"), "--ranks", "16", "--out", str(l22)])
    driver.get(l22.as_uri())
    subtitle = driver.find_element("id", "subtitle").text
    check(console_errors(driver) == [], "lesson 22: loads without console errors")
    check(len(driver.find_elements("css selector", "#phases li")) == 12, "lesson 22: 12 phases listed")
    check("model only (nothing executed)" in subtitle and "NOT verified" not in subtitle,
          f"lesson 22: the subtitle says the lesson ran on the model alone ('{subtitle}')")
    key(driver, Keys.ARROW_RIGHT, 2)
    check(playhead(driver)["done"] == "2", "lesson 22: → steps through the ring's predicted steps")
    driver.save_screenshot(str(work / "lesson22.png"))


def check_big_page(driver, collsim, work):
    """64 ranks: 4 096 cells painted on a canvas, their `.cell` elements still right."""
    from selenium.webdriver.common.keys import Keys
    trace, page, board = work / "ring64.json", work / "ring64.html", work / "ring64-board"
    run([collsim, "run", "--collective", "all_reduce", "--algorithm", "ring", "--ranks", "64", "--count", "64", "--trace", str(trace)])
    run([collsim, "html", str(trace), "--out", str(page)])
    run([collsim, "storyboard", str(trace), "--out", str(board)])
    driver.get(page.as_uri())
    canvas = driver.execute_script("const c = document.getElementById('buffers-canvas'); return c && !c.hidden && c.getBoundingClientRect().height;")
    check(bool(canvas) and canvas > 1000, f"64 ranks: the buffers are painted on a canvas ({canvas} px high)")
    for k in (0, 5, 126):
        key(driver, Keys.HOME)
        key(driver, Keys.ARROW_RIGHT, k)
        expected, shown = storyboard_cells(board / f"step-{k:03d}.svg"), page_cells(driver)
        wrong = [c for c in expected if shown.get(c) != expected[c]]
        check(len(expected) == 4096 and not wrong, f"64 ranks, step {k}: {len(expected)} cells equal the storyboard's ({len(wrong)} differ)")
    check(console_errors(driver) == [], "64 ranks: no console errors")


def buffer_pixels(driver, row):
    """The buffers canvas's pixels across row `row`'s cells, as "#rrggbb" (every 7th)."""
    return driver.execute_script("""
        const c = document.getElementById('buffers-canvas'), g = c.getContext('2d'), dpr = window.devicePixelRatio || 1;
        const y = Math.round((2 + arguments[0] * 26 + 11) * dpr), x0 = Math.round(88 * dpr), x1 = c.width - Math.round(8 * dpr);
        const d = g.getImageData(x0, y, x1 - x0, 1).data, out = [];
        for (let i = 0; i < x1 - x0; i += 7) out.push('#' + [d[4 * i], d[4 * i + 1], d[4 * i + 2]].map(v => v.toString(16).padStart(2, '0')).join(''));
        return out;""", row)


def check_many_cells(driver, collsim, work):
    """Beyond the DOM limit (20 000 cells): no `.cell` elements, the canvas paints pixel
    columns, the keys and frame() still work (a mid-size run: 32 ranks x 32 slices)."""
    from selenium.webdriver.common.keys import Keys
    trace, page = work / "ring32x32.json", work / "ring32x32.html"
    run([collsim, "run", "--collective", "all_reduce", "--algorithm", "ring", "--ranks", "32", "--count", "1024", "--slices", "32",
         "--trace", str(trace)])
    run([collsim, "html", str(trace), "--out", str(page)])
    driver.get(page.as_uri())
    cells = driver.execute_script("return document.querySelectorAll('.cell').length;")
    count = driver.execute_script("return window.collsimPlayer.frame() && document.getElementById('legend').textContent;")
    shown = re.search(r"(\d+) cells", count or "")
    check(cells == 0 and shown is not None and int(shown.group(1)) > 20000,
          f"32 ranks x 32 slices: over 20 000 cells (the DOM limit), no .cell elements ({cells}; '{(count or '')[:90]}')")
    check(driver.execute_script("return window.collsimReadyMs;") > 0, "32 ranks x 32 slices: the player started")
    frame = driver.execute_script("return window.collsimPlayer.frame();")
    check(frame["done"] == 0 and frame["step"] == 0, f"32 ranks x 32 slices: frame() at the start: step {frame['step']}, done {frame['done']}")
    start = buffer_pixels(driver, 0)
    key(driver, Keys.ARROW_RIGHT, 3)
    frame = driver.execute_script("return window.collsimPlayer.frame();")
    ph = playhead(driver)
    check(frame["done"] == 3 and ph["done"] == "3" and float(ph["t"]) == 3, f"32 ranks x 32 slices: → three times: 3 steps done ({ph})")
    key(driver, Keys.END)
    end, top = buffer_pixels(driver, 0), driver.execute_script("const r = JSON.parse(document.getElementById('collsim-data').textContent).palette.ramp; return r[r.length - 1];")
    check(playhead(driver)["done"] == "1984" and set(end) == {top} and top not in start,
          f"32 ranks x 32 slices: at the end every pixel column of rank 0's output is the full shade {top} (at the start: {sorted(set(start))[:3]})")
    key(driver, Keys.HOME)
    check(buffer_pixels(driver, 0) == start, "32 ranks x 32 slices: Home paints the start again")
    driver.execute_script("const s = document.getElementById('scrub'); s.value = 992.5; s.dispatchEvent(new Event('input'));")
    mid = buffer_pixels(driver, 0)
    check(playhead(driver)["step"] == "993" and mid != start and mid != end, f"32 ranks x 32 slices: scrubbing half-way shows step 993, between")
    check(console_errors(driver) == [], "32 ranks x 32 slices: no console errors")


def page_text(page):
    """The page's data, as the script element holds it (what collsimPlayer.load takes)."""
    text = re.search(r'<script id="collsim-data" type="application/json">(.*?)</script>', Path(page).read_text(), re.S).group(1)
    return text.replace("<\\/", "</")


def decode(column):
    """A typed column (docs/web.md, "The data format") as a list of numbers."""
    import array
    import base64
    codes = {"u8": "B", "i8": "b", "u16": "H", "i16": "h", "u32": "I", "i32": "i", "f32": "f", "f64": "d"}
    values = array.array(codes[column["type"]])
    values.frombytes(base64.b64decode(column["base64"]))
    if sys.byteorder == "big":
        values.byteswap()
    return values.tolist()


def check_format(work):
    """The data of the 64-rank ring's page: version 5, every long column typed, of the
    narrowest integer type, of the right length; a clock's times in one type."""
    data = json.loads(page_text(work / "ring64.html"))
    view = data["views"][0]
    T, cells, changes = view["transfers"], view["buffers"]["cells"], view["buffers"]["changes"]
    n = len(decode(T["src"]))
    lengths = {f"transfers.{k}": len(decode(T[k])) for k in ("src", "dst", "step", "chunk", "reduce", "bytes", "way")}
    ncells, nchanges = len(decode(cells["begin"])), len(decode(changes["written"]))
    lengths.update({f"cells.{k}": len(decode(cells[k])) for k in ("begin", "end", "x0", "x1", "first", "count", "target", "eventual_lo", "eventual_hi")})
    lengths.update({f"changes.{k}": len(decode(changes[k])) for k in ("written", "holds", "writer", "mask_lo", "mask_hi")})
    expected = {k: n if k.startswith("transfers") else ncells if k.startswith("cells") else nchanges for k in lengths}
    check(data["version"] == 5 and n == 8064 and ncells > 4096 and lengths == expected,
          f"data format: version 5, {n} transfers, {ncells} cells, {nchanges} changes, every column as long as they")
    widths = {"u8": 0xff, "u16": 0xffff, "u32": 0xffffffff}
    narrow = {k: (c["type"], max(decode(c))) for k, c in (("src", T["src"]), ("step", T["step"]), ("first", cells["first"]))}
    check(all(t == min((w for w in widths if widths[w] >= top), key=widths.get) for t, top in narrow.values()) and narrow["src"][0] == "u8",
          f"data format: the narrowest integer types ({narrow})")
    writer = decode(changes["writer"])
    check(changes["writer"]["type"] in ("i16", "i32") and min(writer) == -1 and max(writer) == n - 1,
          f"data format: writers -1 (an initial state) to {n - 1} ({changes['writer']['type']})")
    for name, c in view["clocks"].items():
        types = {c[k]["type"] for k in ("begin", "end", "keys", "step_done")}
        keys = decode(c["keys"])
        check(len(types) == 1 and types <= {"f32", "f64"} and len(keys) == nchanges and float("-inf") in keys
              and max(keys) <= c["finish"] and c["start"] <= min(decode(c["begin"])),
              f"data format: the {name} clock's times in one type ({types}), keys from -inf to at most its finish")


def shown_numbers(driver):
    """The page's times as shown: per line its kind and its text."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#numbers p')].map(p => [p.dataset.kind, p.innerText]);")


def check_numbers(driver, collsim, src, work):
    """The times at the top of the page: the prediction first, named by its topology and
    protocol, then the simulation's own measured time, in C++'s words (numbers.h); a
    model-only run shows the prediction alone; a lesson's phase its own."""
    trace = json.loads((work / "ring.json").read_text())
    driver.get((work / "ring.html").as_uri())
    shown = shown_numbers(driver)
    words = json.loads(page_text(work / "ring.html"))["views"][0]["numbers"]
    topology = trace["predicted"]["topology"]
    check(len(shown) == 2 and shown[0][0] == "predicted" and shown[0][1].startswith("predicted ")
          and f"on {topology} (no protocol)" in shown[0][1],
          f"ring: the first line of the times is the prediction, on its topology ({shown[:1]})")
    check(shown[1][0] == "measured" and "the simulation's own time on the computer that ran it" in shown[1][1]
          and trace["backend"]["device"] in shown[1][1], f"ring: the second is the simulation's own measured time ({shown[1:]})")
    check([w["kind"] for w in words] == ["predicted", "measured"]
          and all(w["figures"] in line and w["about"] in line for w, (_, line) in zip(words, shown)),
          "ring: the lines are the page data's, placed as C++ wrote them")
    model = work / "model_only.json"
    run([collsim, "run", str(src / "scenarios/ring_allreduce_4.toml"), "--model-only", "--protocol", "ll", "--trace", str(model)])
    run([collsim, "html", str(model), "--out", str(work / "model_only.html")])
    driver.get((work / "model_only.html").as_uri())
    shown = shown_numbers(driver)
    check(len(shown) == 1 and shown[0][0] == "predicted" and "(protocol LL)" in shown[0][1],
          f"model only: the prediction alone, with its protocol ({shown})")
    driver.get((work / "lesson2.html").as_uri())
    shown = shown_numbers(driver)
    check(len(shown) >= 1 and shown[0][0] == "predicted" and shown[0][1].startswith("predicted "),
          f"lesson 2: the shown phase's times lead with its prediction ({shown[:1]})")


def check_load(driver, work):
    """collsimPlayer.load(text): the same text again starts over at step 0 with the listeners
    bound once (→ steps once); another page's text replaces what is shown."""
    from selenium.webdriver.common.keys import Keys
    page = work / "lesson1.html"
    driver.get(page.as_uri())
    before = driver.execute_script("return [document.querySelectorAll('.question').length, document.querySelectorAll('#buffers .cell').length];")
    key(driver, Keys.ARROW_RIGHT, 3)
    driver.execute_script("window.collsimPlayer.load(document.getElementById('collsim-data').textContent);")
    ph = playhead(driver)
    after = driver.execute_script("return [document.querySelectorAll('.question').length, document.querySelectorAll('#buffers .cell').length];")
    check(ph["step"] == "0" and ph["done"] == "0" and driver.execute_script("return window.collsimPlayer.t;") == 0,
          f"load(same text): back at step 0 ({ph})")
    check(after == before, f"load(same text): the questions and cells are made once ({before} -> {after})")
    key(driver, Keys.ARROW_RIGHT)
    check(playhead(driver)["done"] == "1", f"load(same text): → steps once, not twice ({playhead(driver)['done']} done)")
    key(driver, " ")
    time.sleep(0.8)
    key(driver, " ")
    t = float(playhead(driver)["t"])
    check(1.2 < t < 2.6, f"load(same text): space plays at one speed (t = {t:.2f} after 0.8 s from 1)")
    # Another run's data: the parameter server's page.
    driver.execute_script("window.collsimPlayer.load(arguments[0]);", page_text(work / "ps.html"))
    ph = playhead(driver)
    title = driver.find_element("id", "title").text
    questions = driver.execute_script("return document.querySelectorAll('.question').length;")
    check(ph["step"] == "0" and "parameter_server" in driver.find_element("id", "subtitle").text and questions == 0,
          f"load(another page's text): the parameter server shown, at step 0, no questions ('{title}', {ph})")
    key(driver, Keys.END)
    check(playhead(driver)["done"] == "2", "load(another page's text): End: its 2 steps done")
    # A lesson of 164 phases, then a run again: the program comes and goes.
    driver.execute_script("window.collsimPlayer.load(arguments[0]);", page_text(work / "lesson12.html"))
    phases = len(driver.find_elements("css selector", "#phases li"))
    ph = playhead(driver)
    check(phases == 164 and ph["phase"] == "1" and ph["phases"] == "164", f"load(lesson 12's text): 164 phases listed, at the first ({ph})")
    driver.execute_script("window.collsimPlayer.load(arguments[0]);", page_text(work / "ring.html"))
    phases = len(driver.find_elements("css selector", "#phases li"))
    program = driver.find_element("id", "program-panel").is_displayed()
    check(phases == 0 and not program and playhead(driver)["phases"] == "1", f"load(the ring's text): the program is gone ({phases} phases listed)")
    key(driver, Keys.END)
    check(playhead(driver)["done"] == "6", "load(the ring's text): End: its 6 steps done")
    check(console_errors(driver) == [], "load: no console errors")


def check_storyboards(driver, collsim, src, work):
    """The storyboard's page (issue 17, part 3): its first/last buttons draw (no missing glyph
    boxes), its counter numbers a lesson's frames from 1, a DDP caption says its step once."""
    from selenium.webdriver.common.keys import Keys
    board = work / "ring-board" / "index.html"
    driver.get(board.as_uri())
    sizes = driver.execute_script("return ['first', 'last'].map(id => document.querySelector('#' + id + ' svg').getBoundingClientRect().width);")
    check(all(w > 8 for w in sizes), f"storyboard: the first and last buttons draw their icons ({sizes} px wide)")
    check(driver.find_element("id", "counter").text == "step 0 / 6", "storyboard: a run's counter is 'step 0 / 6' at the start")
    ddp = work / "ddp-board"
    run([collsim, "storyboard", str(src / "scenarios/lessons/12_ddp_resnet34.toml"), "--out", str(ddp)])
    driver.get((ddp / "index.html").as_uri())
    counter = driver.find_element("id", "counter").text
    frames = driver.execute_script("return frames.length;")
    check(counter == f"frame 1 / {frames}", f"storyboard: a lesson's counter is 'frame 1 / {frames}' ('{counter}')")
    key(driver, Keys.ARROW_RIGHT)
    caption = driver.find_element("id", "caption").text
    check(caption.count("step 2/") == 1, f"storyboard: DDP's second frame says its step once: '{caption[:90]}'")
    check(console_errors(driver) == [], "storyboard: no console errors")


def check_size_curve(driver, work):
    """busbw against size (issue 36): the ring's page shows it folded, the run's size marked, the
    same SVG the storyboard writes as busbw.svg."""
    driver.get((work / "ring.html").as_uri())
    shown = driver.execute_script(
        "const p = document.getElementById('size-curve-panel'); p.querySelector('details').open = true;"
        "return [p.hidden, document.querySelectorAll('#size-curve svg g.series').length,"
        " document.querySelectorAll('#size-curve svg g.mark').length, document.getElementById('size-curve-caption').textContent,"
        " document.querySelector('#size-curve svg').getBoundingClientRect().width];")
    board = (work / "ring-board" / "busbw.svg").read_text()
    check(shown[0] is False and shown[1] == 1 and shown[2] == 1 and "this run: 32 B" in shown[3] and shown[4] > 600,
          f"ring: the page shows busbw against size, one series, the run's size marked, {shown[4]:.0f} px wide ({shown[:4]})")
    inline = driver.execute_script("return document.querySelector('#size-curve svg g.series').getAttribute('data-series');")
    check(inline == "ring-predicted" and 'data-series="ring-predicted"' in board,
          "ring: the page's curve is the storyboard's busbw.svg (the same series)")
    driver.get((work / "ps.html").as_uri())
    check(driver.execute_script("return document.getElementById('size-curve-panel').hidden;") is False,
          "parameter server: its page shows its curve too")


def check_packets(driver, work):
    """Blocks that travel together are one packet with the view model's words: Bruck's round 1
    sends rank r's slots 1, 3, 5 and 7 to rank r+1 at once, so 8 packets, not 32."""
    driver.get((work / "a2a.html").as_uri())
    driver.execute_script("const s = document.getElementById('scrub'); s.value = 1.5; s.dispatchEvent(new Event('input'));")
    labels = driver.execute_script("return [...document.querySelectorAll('#packets .packet')].map(p => p.getAttribute('data-label'));")
    data = json.loads(page_text(work / "a2a.html"))["views"][0]["clocks"]["steps"]["groups"]["labels"]
    check(len(labels) == 8 and all(l == "1,3,5,7" for l in labels) and "1,3,5,7" in data.values(),
          f"a2a (Bruck): at step 1.5 one packet per rank, named by its four blocks ({labels})")


def check_delay_packets(driver, collsim, work):
    """Under --latency-rule delay two servers' pulls close in on one worker at once (the GUI
    test's case, 4 workers and 2 servers at step 1.75): the page draws them as one, as the
    view model does, so no two packets it draws overlap."""
    page = work / "ps-delay.html"
    run([collsim, "html", "--collective", "all_reduce", "--algorithm", "parameter_server", "--ranks", "4", "--servers", "2",
         "--count", "4096", "--latency-rule", "delay", "--out", str(page)])
    driver.get(page.as_uri())
    worst = []
    for t in (1.25, 1.5, 1.75):
        driver.execute_script(f"const s = document.getElementById('scrub'); s.value = {t}; s.dispatchEvent(new Event('input'));")
        boxes = driver.execute_script("return [...document.querySelectorAll('#packets .packet:not([data-queued=\"1\"])')]"
                                      ".map(p => { const b = p.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2, b.height]; });")
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 < 0.999 * min(a[2], b[2]):
                    worst.append((t, i, j))
    check(worst == [], f"ps --latency-rule delay: no two packets in flight overlap ({worst[:3]})")


def parse_arguments():
    """--collsim, --source-dir and --work (emptied): the browser tests' arguments."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = Path(a.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    return a.collsim, Path(a.source_dir), work


def main():
    collsim, src, work = parse_arguments()
    runs = {
        "ring": (["run", str(src / "scenarios/ring_allreduce_4.toml"), "--count", "8"], 6),
        "ps": (["run", str(src / "scenarios/parameter_server_4.toml"), "--count", "8"], 2),
        "dbt": (["run", "--collective", "all_reduce", "--algorithm", "double_binary_tree", "--ranks", "8", "--count", "64"], None),
        "a2a": (["run", "--collective", "all_to_all", "--algorithm", "bruck", "--ranks", "8", "--count", "8"], None),
    }
    driver = make_driver("1280,800")
    from selenium.webdriver.common.keys import Keys
    try:
        for name, (args, steps) in runs.items():
            trace = work / f"{name}.json"
            run([collsim, *args, "--trace", str(trace)])
            steps = len(json.loads(trace.read_text())["schedule"]["steps"]) if steps is None else steps
            page = work / f"{name}.html"
            out = run([collsim, "html", str(trace), "--out", str(page)])
            check("page:" in out and page.exists(), f"{name}: collsim html wrote {page.name}")
            run([collsim, "storyboard", str(trace), "--out", str(work / f"{name}-board")])
            check_page(driver, name, page, work / f"{name}-board", steps)
        check_size_curve(driver, work)
        check_packets(driver, work)
        check_delay_packets(driver, collsim, work)
        # A scenario with questions: hidden until clicked, and the CLI's answer.
        lesson = src / "scenarios/lessons/01_ring_allreduce.toml"
        page = work / "lesson1.html"
        run([collsim, "html", str(lesson), "--out", str(page)])
        answers = re.findall(r"Answer: (.*)", run([collsim, "run", str(lesson), "--answers"]))
        driver.get(page.as_uri())
        hidden = driver.execute_script("return [...document.querySelectorAll('.answer')].map(a => a.hidden);")
        check(len(hidden) == len(answers) > 0 and all(hidden), f"lesson 1: {len(hidden)} answers, all hidden at first")
        driver.find_elements("css selector", ".reveal")[0].click()
        first = driver.find_elements("css selector", ".answer")[0]
        questions = re.findall(r"^  \d+\. (.*)$", run([collsim, "run", str(lesson)]), re.M)
        shown = driver.execute_script("return [...document.querySelectorAll('.question')].map(q => q.firstChild.textContent.trim());")
        check(shown == [q.strip() for q in questions], f"lesson 1: the questions read as the CLI prints them: {shown[:1]}")
        check(first.is_displayed() and first.text.strip() == answers[0].strip(),
              f"lesson 1: the first answer shows when clicked and is the CLI's: '{first.text[:60]}'")
        caption = driver.find_element("id", "file-caption").text
        key(driver, Keys.ARROW_RIGHT, 3)
        check(driver.find_element("id", "file-caption").text != caption and "Step 3" in driver.find_element("id", "file-caption").text,
              "lesson 1: after three steps the file's caption is step 3's")
        check(console_errors(driver) == [], "lesson 1: no console errors")
        driver.save_screenshot(str(work / "lesson1.png"))
        check_lessons(driver, collsim, src, work)
        check_storyboards(driver, collsim, src, work)
        check_big_page(driver, collsim, work)
        check_many_cells(driver, collsim, work)
        check_format(work)
        check_numbers(driver, collsim, src, work)
        check_load(driver, work)
    finally:
        driver.quit()
    # A phone-sized viewport: the page still lays out (no horizontal overflow of the body).
    phone = make_driver("390,844")
    try:
        phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        phone.get((work / "ring.html").as_uri())
        overflow = phone.execute_script("return document.documentElement.scrollWidth - window.innerWidth;")
        check(overflow <= 1, f"phone (390x844): nothing overflows sideways ({overflow} px)")
        phone.save_screenshot(str(work / "ring-phone.png"))
    finally:
        phone.quit()
    # Bad input: a lesson with a run flag and a bad output path are refused, nothing written.
    bad = subprocess.run([collsim, "html", str(src / "scenarios/lessons/02_ring_vs_parameter_server.toml"), "--count", "8",
                          "--out", str(work / "x.html")], capture_output=True, text=True)
    check(bad.returncode == 2 and "--count changes one collective" in bad.stderr and not (work / "x.html").exists(),
          f"a lesson with --count: exit 2, nothing written ({bad.stderr.strip()[:80]})")
    bad = subprocess.run([collsim, "html", "--count", "8", "--out", str(work / "no/such/folder/x.html")], capture_output=True, text=True)
    check(bad.returncode == 2 and "--out" in bad.stderr, f"an --out in a missing folder: exit 2 naming --out ({bad.stderr.strip()[:80]})")
    print(f"\n{len(failures)} failure(s)" if failures else "\nall checks held")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
