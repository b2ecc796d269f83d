#!/usr/bin/env python3
"""The web page's size, load time and scrub frame time in Debian's chromium, headless
(docs/performance.md, "The web page"). Usage:

    /usr/bin/python3 bench/web_page.py PAGE.html [PAGE.html ...]

For each page: its size; the load time (navigation start to the end of the player's
start-up, window.collsimReadyMs, the median of 3 loads); the scrub frame time: 300
animation frames, each jumping the playhead to a random time, the time between frames
(script, style, layout and paint included), mean and p99; and the script's share of a
frame, collsimPlayer.seek alone, median. The machine's load (/proc/loadavg) before and after.
"""
import shutil
import statistics
import sys
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

SCRUB = """
const done = arguments[0];
const p = window.collsimPlayer, c = document.getElementById('scrub');
const lo = parseFloat(c.min), hi = parseFloat(c.max);
const times = [], seeks = []; let last = 0, n = 0, seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
function frame(now) {
  if (last) times.push(now - last);
  last = now;
  if (++n > 301) return done([times, seeks]);
  const at = performance.now();
  p.seek(lo + random() * (hi - lo));
  seeks.push(performance.now() - at);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
"""


def main(pages):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.set_script_timeout(600)
    driver.set_page_load_timeout(600)
    print("load average:", Path("/proc/loadavg").read_text().strip())
    print("| page | size (MiB) | load (ms, median of 3) | scrub frame mean (ms) | scrub frame p99 (ms) | seek script median (ms) |")
    print("|---|---|---|---|---|---|")
    try:
        for page in pages:
            path = Path(page).resolve()
            loads = []
            for _ in range(3):
                driver.get(path.as_uri())
                loads.append(driver.execute_script("return window.collsimReadyMs;"))
            times, seeks = driver.execute_async_script(SCRUB)
            times = sorted(times)
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            print(f"| {path.name} | {path.stat().st_size / 2**20:.2f} | {statistics.median(loads):.0f} | "
                  f"{statistics.mean(times):.1f} | {p99:.1f} | {statistics.median(seeks):.1f} |", flush=True)
    finally:
        driver.quit()
    print("load average:", Path("/proc/loadavg").read_text().strip())


if __name__ == "__main__":
    main(sys.argv[1:])
