#!/usr/bin/env python3
"""The web page's stage (docs/web.md, "The stage") in a real browser: Debian's chromium,
headless, through Selenium (tests/CMakeLists.txt registers it as the ctest `web_stage`,
labelled `web`).

A projector's 1280x800 window at 150 % zoom is a CSS viewport of 853x533 with 1.5 device
pixels per CSS pixel (Chrome's zoom, emulated with Emulation.setDeviceMetricsOverride). For
the runs and lessons the app's gui_stage test holds (tests/gui/stage.txt) -- ring 4 and 8,
the parameter server with 1 and 2 servers, the double binary tree on 8, hierarchical 2x4,
Bruck on 8, lessons 2, 12, 13 and 18 -- it writes the page, shows the phase and the step
where packets are on their way, and holds the element rectangles to the same rules: the
scene panel covers 45 % of the window or more; the caption block 20 % of its height or
less; every rank's output row is in view and 16 device px high or more; no label (a node
box's name, a hub's) covers another label, a disc, a hub or a packet, nor leaves its hub or
the scene; discs are 36 device px across or more and packets 24.

Usage: test_stage.py --collsim PATH --source-dir DIR --work DIR
Exit 0 when every check held; 1 with the failures listed. Without chromium, chromedriver or
Selenium it fails, naming what is missing: it never skips.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_page import check, console_errors, failures, make_driver, page_text, parse_arguments, run  # noqa: E402

ZOOM = 1.5
WINDOW = (1280, 800)

# What the page drew, in CSS pixels (getBoundingClientRect), and the viewport.
MEASURE = """
const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; };
const inside = (e, sel) => e.closest(sel) !== null;
const cells = [...document.querySelectorAll('#buffers .cell[data-buffer="output"]')];
const rows = {};
for (const c of cells) {
  const r = c.getBoundingClientRect(), k = c.dataset.rank;
  if (!(k in rows)) rows[k] = [r.left, r.top, r.right, r.bottom];
  else rows[k] = [Math.min(rows[k][0], r.left), Math.min(rows[k][1], r.top), Math.max(rows[k][2], r.right), Math.max(rows[k][3], r.bottom)];
}
return {
  stage: document.body.classList.contains('stage'),
  view: [innerWidth, innerHeight, devicePixelRatio],
  scene: box(document.getElementById('scene-panel')),
  svg: box(document.getElementById('scene')),
  captions: box(document.getElementById('captions')),
  note: box(document.getElementById('scene-note')),
  buffers_panel: box(document.getElementById('buffers-panel')),
  discs: [...document.querySelectorAll('#scene .rank circle, #scene .rank rect')].map(box),
  packets: [...document.querySelectorAll('#packets .packet')].map((p) => box(p.firstElementChild)),
  hubs: [...document.querySelectorAll('#scene rect.hub')].map(box),
  hub_labels: [...document.querySelectorAll('#scene text.hub-label')].map((t) => [t.textContent, box(t)]),
  labels: [...document.querySelectorAll('#scene text')].filter((t) => !inside(t, '.rank') && !inside(t, '.packet') && !t.classList.contains('hub-label'))
            .map((t) => [t.textContent, box(t)]),
  outputs: rows,
};
"""


def overlap(a, b, slack=0.5):
    return a[0] + slack < b[0] + b[2] and b[0] + slack < a[0] + a[2] and a[1] + slack < b[1] + b[3] and b[1] + slack < a[1] + a[3]


def within(outer, inner):
    return inner[0] >= outer[0] - 0.5 and inner[1] >= outer[1] - 0.5 and \
        inner[0] + inner[2] <= outer[0] + outer[2] + 0.5 and inner[1] + inner[3] <= outer[1] + outer[3] + 0.5


def visible_area(b, w, h):
    x0, y0, x1, y1 = max(b[0], 0), max(b[1], 0), min(b[0] + b[2], w), min(b[1] + b[3], h)
    return max(0, x1 - x0) * max(0, y1 - y0)


def check_stage(driver, name, page, phase, step):
    driver.get(page.as_uri())
    if phase:
        driver.execute_script("collsimPlayer.enterPhase(arguments[0] - 1, false);", phase)
    driver.execute_script("collsimPlayer.setClock('steps'); collsimPlayer.seek(arguments[0]);", step)
    m = driver.execute_script(MEASURE)
    w, h, dpr = m["view"]
    check(m["stage"] and abs(dpr - ZOOM) < 1e-6 and w < 900, f"{name}: the page is a stage at {w}x{h} CSS px, {dpr} device px each")
    share = visible_area(m["scene"], w, h) / (w * h)
    check(share >= 0.45, f"{name}: the scene covers {share:.0%} of the window (45 % or more)")
    caption = m["captions"][3] / h
    check(caption <= 0.2, f"{name}: the caption block takes {caption:.0%} of the height (20 % or less)")
    disc = min(min(b[2], b[3]) for b in m["discs"]) * dpr
    check(disc >= 36, f"{name}: discs are {disc:.0f} device px across (36 or more)")
    check(len(m["packets"]) > 0, f"{name}: packets are on their way at step {step}")
    if m["packets"]:
        packet = min(b[3] for b in m["packets"]) * dpr
        check(packet >= 24, f"{name}: packets are {packet:.0f} device px high (24 or more)")
    data = json.loads(page_text(page))
    view = data["views"][data["phases"][phase - 1]["view"] if phase else 0]
    missing = []
    for rank in sorted({str(r["rank"]) for r in view["buffers"]["rows"] if r["buffer"] == "output"}):
        r = m["outputs"].get(rank)
        if r is None or r[1] < 0 or r[3] > h or (r[3] - r[1]) * dpr < 16:
            missing.append(rank)
    check(m["outputs"] and not missing, f"{name}: every rank's output row is in view, 16 device px high or more (not: {missing})")
    over = []
    labels = m["labels"] + m["hub_labels"]
    for i, (text, b) in enumerate(labels):
        for text2, b2 in labels[i + 1:]:
            if overlap(b, b2):
                over.append(f"'{text}' over '{text2}'")
        over += [f"'{text}' over a disc" for d in m["discs"] if overlap(b, d)]
        over += [f"'{text}' over a packet" for p in m["packets"] if overlap(b, p)]
    for text, b in m["labels"]:
        over += [f"'{text}' over a hub" for hub in m["hubs"] if overlap(b, hub)]
    check(not over, f"{name}: no label covers a label, disc, hub or packet ({over[:3]})")
    cut = [text for text, b in m["hub_labels"] if not any(within(hub, b) for hub in m["hubs"])]
    cut += [text for text, b in labels if not within(m["svg"], b)]
    cut += ["the scene's note"] if not within(m["scene"], m["note"]) else []
    cut += [f"the {p} panel, by the window" for p in ("scene", "buffers_panel") if not within([0, 0, w, h], m[p])]
    check(not cut, f"{name}: no text is cut by its hub or the scene ({cut[:3]})")
    check(console_errors(driver) == [], f"{name}: no console errors")


def main():
    collsim, src, work = parse_arguments()
    s = src / "scenarios"
    cases = [
        ("ring 4", [s / "ring_allreduce_4.toml"], None, 2.5),
        ("ring 8", [s / "ring_allreduce_4.toml", "--ranks", "8"], None, 2.5),
        ("parameter server, 1 server", [s / "parameter_server_4.toml"], None, 0.5),
        ("parameter server, 2 servers", [s / "parameter_server_4.toml", "--servers", "2"], None, 0.5),
        ("double binary tree 8", ["-c", "all_reduce", "-a", "double_binary_tree", "-n", "8"], None, 2.5),
        ("hierarchical 2x4", ["-c", "all_reduce", "-a", "hierarchical", "-n", "8", "--ranks-per-node", "4"], None, 2.5),
        ("Bruck 8", ["-c", "all_to_all", "-a", "bruck", "-n", "8"], None, 1.5),
        ("lesson 2", [s / "lessons/02_ring_vs_parameter_server.toml"], 2, 0.5),
        ("lesson 12", [s / "lessons/12_ddp_resnet34.toml"], 128, 2.5),
        ("lesson 13", [s / "lessons/13_fsdp_resnet34.toml"], 3, 1.5),
        ("lesson 18", [s / "lessons/18_streams.toml"], 2, 0.5),
    ]
    css = (round(WINDOW[0] / ZOOM), round(WINDOW[1] / ZOOM))
    driver = make_driver(f"{WINDOW[0]},{WINDOW[1]}")
    try:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": css[0], "height": css[1], "deviceScaleFactor": ZOOM, "mobile": False})
        for i, (name, args, phase, step) in enumerate(cases):
            page = work / f"stage{i}.html"
            run([collsim, "html", *map(str, args), "--out", str(page)])
            check_stage(driver, name, page, phase, step)
            driver.save_screenshot(str(work / f"stage{i}.png"))
    finally:
        driver.quit()
    print(f"\n{len(failures)} failure(s)" if failures else "\nall checks held")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
