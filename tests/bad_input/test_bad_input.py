#!/usr/bin/env python3
"""The bad-input corpus (issue 21, part 7): each case gives collsim one bad input — a
scenario, a lesson, a hand-written schedule, a trace, an MSCCL file or a flag — as a new
user would, and checks what must always hold:

- exit status 2 (bad input; 1 is kept for a wrong result), and no crash;
- stderr names the problem: the case's fragment (file:line, the key or the flag);
- nothing is written: the output the case asks for does not appear, an existing file the
  same command would overwrite is unchanged, and no temporary is left in the folder.

Commands that write (`run`, `convert`) get `--trace new.json --chrome existing.json`
appended, unless the case is about its own outputs. Run by ctest as `bad_input`.

Usage: test_bad_input.py --collsim PATH --work DIR [--source-dir DIR] [--show]
(--show prints every case's stderr, to write a new case's fragment.)
"""
import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

SCENARIO = """format = 1
title = "t"
[collective]
collective = "all_reduce"
algorithm = "ring"
ranks = 4
count = "1K"
"""

LESSON = """format = 2
title = "l"
ranks = 4

[[phase]]
name = "reduce"
collective = "all_reduce"
count = "1K"
"""

SCHEDULE = """schedule_format = 1
collective = "all_gather"
ranks = 2
pre = ["copy input to output"]

[[step]]
transfers = [{ src = 0, dst = 1, chunk = 0 }, { src = 1, dst = 0, chunk = 1 }]
"""

SCHEDULE_SCENARIO = """format = 1
[collective]
collective = "all_gather"
algorithm = "custom"
ranks = 2
count = 16
schedule = "s.schedule.toml"
"""

# An all-gather on 2 GPUs: each sends its input chunk to the other and copies it to its own output.
MSCCL_RING = """<algo name="ag" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="0">
  <gpu id="0" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
"""


def replace_in(text, old, new):
    assert old in text, old
    return text.replace(old, new)


# (name, argv, fragment of stderr, files to create {name: text or bytes}, env)
# In argv, a bare file name of `files` is passed as a path in the case's folder.
CASES = [
    # --- scenario files (format 1) --------------------------------------------------------
    ("scenario missing", ["run", "nosuch.toml"], "nosuch.toml", {}, {}),
    ("scenario empty", ["run", "s.toml"], "s.toml", {"s.toml": ""}, {}),
    ("scenario is a folder", ["run", "dir"], "dir", {"dir/": ""}, {}),
    ("scenario toml syntax", ["run", "s.toml"], "s.toml:6:11", {"s.toml": SCENARIO.replace('ranks = 4', 'ranks = "4')}, {}),
    ("scenario unknown key", ["run", "s.toml"], "rnaks", {"s.toml": SCENARIO.replace("ranks = 4", "rnaks = 4")}, {}),
    ("scenario unknown table", ["run", "s.toml"], "colective", {"s.toml": SCENARIO.replace("[collective]", "[colective]")}, {}),
    ("scenario ranks a string", ["run", "s.toml"], "ranks", {"s.toml": SCENARIO.replace("ranks = 4", 'ranks = "four"')}, {}),
    ("scenario ranks 0", ["run", "s.toml"], "ranks", {"s.toml": SCENARIO.replace("ranks = 4", "ranks = 0")}, {}),
    ("scenario ranks huge", ["run", "s.toml"], "ranks", {"s.toml": SCENARIO.replace("ranks = 4", "ranks = 100000")}, {}),
    ("scenario count suffix", ["run", "s.toml"], "count", {"s.toml": SCENARIO.replace('count = "1K"', 'count = "12Q"')}, {}),
    ("scenario count negative", ["run", "s.toml"], "count", {"s.toml": SCENARIO.replace('count = "1K"', "count = -5")}, {}),
    ("scenario dtype", ["run", "s.toml"], "f128", {"s.toml": SCENARIO + 'dtype = "f128"\n'}, {}),
    ("scenario op", ["run", "s.toml"], "xor", {"s.toml": SCENARIO + 'op = "xor"\n'}, {}),
    ("scenario collective", ["run", "s.toml"], "allreduce2", {"s.toml": SCENARIO.replace('"all_reduce"', '"allreduce2"')}, {}),
    ("scenario algorithm", ["run", "s.toml"], "spiral", {"s.toml": SCENARIO.replace('"ring"', '"spiral"')}, {}),
    ("scenario root outside", ["run", "s.toml"], "root", {"s.toml": SCENARIO.replace('"all_reduce"', '"broadcast"').replace('"ring"', '"chain"') + "root = 9\n"}, {}),
    ("scenario format 99", ["run", "s.toml"], "format", {"s.toml": SCENARIO.replace("format = 1", "format = 99")}, {}),
    ("scenario no format", ["run", "s.toml"], "format", {"s.toml": SCENARIO.replace("format = 1\n", "")}, {}),
    ("scenario in place all_to_all", ["run", "s.toml"], "in-place", {"s.toml": SCENARIO.replace('"all_reduce"', '"all_to_all"').replace('"ring"', '"direct"') + "in_place = true\n"}, {}),
    ("scenario link preset", ["run", "s.toml"], "warp", {"s.toml": SCENARIO + '[topology]\nlink = "warp"\n'}, {}),
    ("scenario backend", ["run", "s.toml"], "quantum", {"s.toml": SCENARIO + '[run]\nbackend = "quantum"\n'}, {}),
    ("scenario model_only and backend", ["run", "s.toml"], "leave out 'backend'", {"s.toml": SCENARIO + '[run]\nbackend = "cpu"\nmodel_only = true\n'}, {}),
    ("scenario model_only not boolean", ["run", "s.toml"], "model_only", {"s.toml": SCENARIO + '[run]\nmodel_only = "yes"\n'}, {}),
    ("scenario model_only with --backend", ["run", "s.toml", "--backend", "cpu"], "runs on the timing model alone", {"s.toml": SCENARIO + '[run]\nmodel_only = true\n'}, {}),
    ("scenario seed negative", ["run", "s.toml"], "seed", {"s.toml": SCENARIO + "[run]\nseed = -3\n"}, {}),
    ("scenario not utf-8", ["run", "s.toml"], "s.toml", {"s.toml": SCENARIO.encode() + b'title2 = "\xff\xfe"\n'}, {}),
    ("scenario non-ascii after value", ["run", "s.toml"], "s.toml:1", {"s.toml": SCENARIO.replace("format = 1", "format = 1 \u00e9")}, {}),
    ("scenario triple bracket", ["run", "s.toml"], "s.toml", {"s.toml": SCENARIO + "[[[a]]]\n"}, {}),
    ("scenario inputs not numbers", ["run", "s.toml"], "inputs", {"s.toml": SCENARIO + 'inputs = [1, "two"]\n'}, {}),
    ("scenario i32 input too big", ["run", "s.toml"], "i32", {"s.toml": SCENARIO + 'dtype = "i32"\ninputs = [3000000000]\n'}, {}),
    # --- lessons (format 2) ----------------------------------------------------------------
    ("lesson topology_fixed unknown key", ["run", "l.toml"], "l.toml:4:", {"l.toml": LESSON.replace("ranks = 4\n", 'ranks = 4\ntopology_fixed = ["colour"]\n')}, {}),
    ("lesson topology_fixed flag", ["run", "l.toml", "--topology", "ring"], "topology_fixed", {"l.toml": LESSON.replace("ranks = 4\n", 'ranks = 4\ntopology_fixed = ["kind"]\n')}, {}),
    ("lesson topology_fixed topology file", ["run", "l.toml", "--topology-file", "t.toml"], "t.toml ([topology] kind = ring): ", {"l.toml": LESSON.replace("ranks = 4\n", 'ranks = 4\ntopology_fixed = ["kind"]\n'), "t.toml": '[topology]\nkind = "ring"\n'}, {}),
    ("lesson no phases", ["run", "l.toml"], "phase", {"l.toml": LESSON.split("[[phase]]")[0]}, {}),
    ("lesson unknown phase key", ["run", "l.toml"], "colour", {"l.toml": LESSON + 'colour = "red"\n'}, {}),
    ("lesson wait_for not a name", ["run", "l.toml"], "wait_for[0]", {"l.toml": LESSON + "wait_for = [7]\n"}, {}),
    ("lesson wait_for missing phase", ["run", "l.toml"], "nosuch", {"l.toml": LESSON + 'wait_for = ["nosuch"]\n'}, {}),
    ("lesson compute negative", ["run", "l.toml"], "compute", {"l.toml": LESSON + '\n[[phase]]\nname = "c"\ncompute = -4.0\n'}, {}),
    ("lesson caption unknown name", ["run", "l.toml"], "p9", {"l.toml": LESSON + 'caption = "ends at {p9.time_us}"\n'}, {}),
    ("lesson question without metric", ["run", "l.toml"], "metric", {"l.toml": LESSON + '\n[[question]]\ntext = "when?"\nanswer = "{p5.time_us}"\n'}, {}),
    ("lesson steps outside", ["run", "l.toml"], "steps", {"l.toml": LESSON + "steps = [4, 99]\n"}, {}),
    ("lesson dump", ["run", "l.toml", "--dump", "d"], "--dump", {"l.toml": LESSON + '\n[[phase]]\nname = "c"\ncompute = 4.0\n'}, {}),
    # --- hand-written schedules --------------------------------------------------------------
    ("schedule missing", ["run", "-c", "all_gather", "--ranks", "2", "--schedule", "nosuch.schedule.toml"], "nosuch.schedule.toml", {}, {}),
    ("schedule format 2", ["run", "s.toml"], "schedule_format", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.replace("schedule_format = 1", "schedule_format = 2")}, {}),
    ("schedule src outside", ["run", "s.toml"], "src", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.replace("src = 1", "src = 5")}, {}),
    ("schedule chunk outside", ["run", "s.toml"], "chunk", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.replace("chunk = 1", "chunk = 9")}, {}),
    ("schedule action", ["run", "s.toml"], "multiply", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.replace("chunk = 1 }", 'chunk = 1, action = "multiply" }')}, {}),
    ("schedule step not a table", ["run", "s.toml"], "step", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.split("[[step]]")[0] + "step = 5\n"}, {}),
    ("schedule dst negative", ["run", "s.toml"], "dst", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.replace("dst = 0", "dst = -1")}, {}),
    ("schedule ranks differ", ["run", "s.toml", "--ranks", "3"], "ranks", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE}, {}),
    ("schedule unknown key", ["run", "s.toml"], "sorce", {"s.toml": SCHEDULE_SCENARIO, "s.schedule.toml": SCHEDULE.replace("{ src = 0", "{ sorce = 0")}, {}),
    ("schedule file too big", ["validate", "big.schedule.toml"], "limited to 64 MiB", {"big.schedule.toml": "SPARSE_65M"}, {}),
    ("schedule syntax", ["validate", "s.schedule.toml"], "s.schedule.toml:", {"s.schedule.toml": SCHEDULE.replace("]\n", "\n", 1)}, {}),
    # --- traces (JSON) ------------------------------------------------------------------------
    ("trace not json", ["convert", "t.json"], "t.json", {"t.json": "this is not json\n"}, {}),
    ("trace empty", ["convert", "t.json"], "t.json", {"t.json": ""}, {}),
    ("trace other format", ["convert", "t.json"], "format", {"t.json": '{"format": "chrome", "version": 1}'}, {}),
    ("trace version 99", ["convert", "t.json"], "version", {"t.json": '{"format": "collsim-trace", "version": 99}'}, {}),
    ("trace number overflow", ["convert", "t.json"], "t.json:2:12: not a collsim trace: number overflow",
     {"t.json": '{"format": "collsim-trace",\n"version": 1e999}'}, {}),
    ("trace truncated", ["convert", "t.json"], "t.json", {"t.json": "TRUNCATED"}, {}),
    ("trace record rank outside", ["convert", "t.json"], "t.json", {"t.json": "BAD_RANK"}, {}),
    ("trace missing records", ["convert", "t.json"], "records", {"t.json": "NO_RECORDS"}, {}),
    ("storyboard of a bad trace", ["storyboard", "t.json", "--out", "board"], "t.json", {"t.json": "[1, 2"}, {}),
    ("html of a bad trace", ["html", "t.json", "--out", "page.html"], "t.json", {"t.json": '{"format": "collsim-trace"}'}, {}),
    # --- MSCCL algorithm files --------------------------------------------------------------
    ("msccl malformed xml", ["validate", "a.xml"], "a.xml", {"a.xml": MSCCL_RING.replace("</algo>", "")}, {}),
    ("msccl unknown step type", ["validate", "a.xml"], "teleport", {"a.xml": MSCCL_RING.replace('type="s"', 'type="teleport"')}, {}),
    ("msccl unknown attribute", ["validate", "a.xml"], "colour", {"a.xml": MSCCL_RING.replace('cnt="1"', 'cnt="1" colour="red"')}, {}),
    ("msccl send without receive", ["validate", "a.xml"], "receive", {"a.xml": MSCCL_RING.replace(
        '<step s="1" type="r" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>', "")}, {}),
    ("msccl dependency on a missing step", ["validate", "a.xml"], "a.xml", {"a.xml": MSCCL_RING.replace(
        'type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1"',
        'type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="0" deps="9"')}, {}),
    ("msccl offset outside", ["validate", "a.xml"], "a.xml", {"a.xml": MSCCL_RING.replace('dstoff="1"', 'dstoff="7"', 1)}, {}),
    ("msccl run of a missing file", ["run", "-c", "all_gather", "--ranks", "2", "--schedule", "nosuch.xml"], "nosuch.xml", {}, {}),
    # --- flags --------------------------------------------------------------------------------
    ("flag ranks not a number", ["run", "--ranks", "abc"], "--ranks", {}, {}),
    ("flag count suffix", ["run", "--count", "1X"], "--count", {}, {}),
    ("flag count negative", ["run", "--count", "-5"], "--count", {}, {}),
    ("flag collective", ["run", "-c", "nosuch"], "nosuch", {}, {}),
    ("flag algorithm", ["run", "-a", "nosuch"], "nosuch", {}, {}),
    ("flag root negative", ["run", "-c", "broadcast", "--root", "-1"], "--root", {}, {}),
    ("flag backend", ["run", "--backend", "quantum"], "quantum", {}, {}),
    ("flag placement", ["run", "--placement", "sideways"], "sideways", {}, {}),
    ("flag slices", ["run", "--slices", "5000"], "--slices", {}, {}),
    ("flag link", ["run", "--link", "warp"], "warp", {}, {}),
    ("flag arrange", ["run", "--arrange", "nodes"], "--arrange: unknown arrangement 'nodes'", {}, {}),
    ("flag inputs", ["run", "--inputs", "1,2,x"], "--inputs", {}, {}),
    ("flag model-only ranks", ["run", "--model-only", "--ranks", "70000"], "--ranks", {}, {}),
    ("flag trace empty", ["run", "--trace", ""], "--trace", {}, {}),
    ("flag trace in /proc", ["run", "--trace", "/proc/x.json"], "--trace", {}, {}),
    ("flag trace is a folder", ["run", "--trace", "dir"], "--trace", {"dir/": ""}, {}),
    ("flag trace and chrome one file", ["run", "--trace", "existing.json", "--chrome", "./existing.json"], "the same file", {}, {}),
    ("flag trace read-only", ["run", "--trace", "readonly.json"], "--trace", {"readonly.json": "precious\n"}, {}),
    ("flag dump onto a file", ["run", "--dump", "existing.json/d"], "--dump", {}, {}),
    ("flag bench begin size", ["bench", "-b", "1X"], "-b", {}, {}),
    ("flag bench end before begin", ["bench", "-b", "1M", "-e", "1K"], "-e", {}, {}),
    ("flag storyboard out onto a file", ["storyboard", "--out", "existing.json"], "--out", {}, {}),
    ("flag html out in /proc", ["html", "--out", "/proc/x.html"], "--out", {}, {}),
    ("flag unknown", ["run", "--frobnicate"], "--frobnicate", {}, {}),
    ("flag explain missing file", ["explain", "nosuch.toml"], "nosuch.toml", {}, {}),
    ("run estimated too long", ["run", "--ranks", "8", "--count", "64M"], "--allow-long", {}, {"COLLSIM_TEST_MEMCPY_GBPS": "0.001"}),
    ("lesson estimated too long", ["run", "l.toml"], "--allow-long", {"l.toml": LESSON}, {"COLLSIM_TEST_MEMCPY_GBPS": "1e-9"}),
    ("bench estimated too long", ["bench", "--ranks", "2", "-b", "1M", "-e", "1M"], "-e/--maxbytes", {},
     {"COLLSIM_TEST_MEMCPY_GBPS": "0.00001"}),
]

# Cases about their own output flags, or of commands that write nothing: no outputs appended.
OWN_OUTPUTS = {"flag trace empty", "flag trace in /proc", "flag trace is a folder", "flag trace and chrome one file",
               "flag trace read-only", "flag dump onto a file", "lesson dump", "flag model-only ranks"}
PRECIOUS = "precious: must survive every failed command\n"


def trace_text(a, work, kind):
    """A real trace, then spoiled as the case asks."""
    good = work / "good.json"
    if not good.exists():
        subprocess.run([a.collsim, "run", "--ranks", "2", "--count", "8", "-q", "--trace", str(good)], check=True,
                       capture_output=True)
    text = good.read_text()
    if kind == "TRUNCATED":
        return text[: len(text) // 2]
    if kind == "BAD_RANK":
        import json
        data = json.loads(text)
        data["schedule"]["transfers"][0]["src"] = 77
        return json.dumps(data)
    if kind == "NO_RECORDS":
        import json
        data = json.loads(text)
        del data["records"]
        return json.dumps(data)
    return kind


def run_case(a, root, case):
    name, argv, fragment, files, env = case
    here = root / name.replace(" ", "_").replace("/", "_")
    shutil.rmtree(here, ignore_errors=True)
    here.mkdir(parents=True)
    for fname, content in files.items():
        if fname.endswith("/"):
            (here / fname).mkdir()
            continue
        if content in ("TRUNCATED", "BAD_RANK", "NO_RECORDS"):
            content = trace_text(a, root, content)
        if content == "SPARSE_65M":  # a file over the schedule size limit, refused before it is read
            with open(here / fname, "wb") as f:
                f.write(SCHEDULE.encode())
                f.truncate(65 << 20)
            continue
        (here / fname).write_bytes(content if isinstance(content, bytes) else content.encode())
    existing = here / "existing.json"
    existing.write_text(PRECIOUS)
    if (here / "readonly.json").exists():
        (here / "readonly.json").chmod(0o444)
    args = [str(here / x) if (x in files or x.rstrip("/") + "/" in files or x.startswith("existing.json"))
            else x for x in argv]
    args = [str(here / x) if x in ("d", "board", "page.html", "dir") and x not in files else x for x in args]
    if argv[0] in ("run", "convert") and name not in OWN_OUTPUTS:
        args += ["--trace", str(here / "new.json"), "--chrome", str(existing)]
    before = sorted(p.name for p in here.iterdir())
    r = subprocess.run([a.collsim, *args], capture_output=True, text=True, timeout=120, cwd=here,
                       env={**os.environ, **env})
    after = sorted(p.name for p in here.iterdir())
    problems = []
    if r.returncode != 2:
        problems.append(f"exit {r.returncode}, not 2")
    if fragment not in r.stderr:
        problems.append(f"stderr lacks {fragment!r}")
    if "terminate called" in r.stderr or "Sanitizer" in r.stderr or "failed:" in r.stderr:
        problems.append("an unexpected failure, not an input error")
    if existing.read_text() != PRECIOUS:
        problems.append("existing.json was changed")
    if after != before:
        problems.append(f"files appeared or vanished: {sorted(set(after) ^ set(before))}")
    return problems, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collsim", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--only")
    a = ap.parse_args()
    a.collsim = str(Path(a.collsim).resolve())
    root = Path(a.work).resolve()
    root.mkdir(parents=True, exist_ok=True)
    names = [c[0] for c in CASES]
    assert len(names) == len(set(names)), "case names are unique"
    failures = []
    # Every case mutates one of these, so each must be valid as it stands: then the error a
    # case gets comes from its one change.
    base = root / "valid"
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir()
    for name, text in (("s.toml", SCENARIO), ("l.toml", LESSON), ("s.schedule.toml", SCHEDULE),
                       ("custom.toml", SCHEDULE_SCENARIO.replace("s.schedule.toml", "s.schedule.toml")), ("a.xml", MSCCL_RING)):
        (base / name).write_text(text)
    for name in ("s.toml", "l.toml", "s.schedule.toml", "custom.toml", "a.xml"):
        r = subprocess.run([a.collsim, "validate", str(base / name)], capture_output=True, text=True, timeout=60)
        ok = r.returncode == 0
        print(("ok   " if ok else "FAIL ") + f"the base input {name} is valid" + ("" if ok else ": " + r.stderr.strip()[:300]))
        if not ok:
            failures.append(f"base {name}")
    for case in CASES:
        if a.only and a.only not in case[0]:
            continue
        problems, r = run_case(a, root, case)
        print(("ok   " if not problems else "FAIL ") + case[0] + ("" if not problems else ": " + "; ".join(problems)))
        if a.show or problems:
            print("     stderr: " + r.stderr.strip().replace("\n", "\n             ")[:600])
        if problems:
            failures.append(case[0])
    print(f"\n{len(CASES)} cases and 5 base inputs, {len(failures)} failed" + ("".join("\n  " + f for f in failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
