#!/usr/bin/env python3
"""Whether trace files written by different front ends are byte-identical apart from the
measured clock (tests/gui/run_gui_tests.cmake, case same_trace).

Usage: same_trace.py TRACE...  -- exit 0 when every file equals the first once normalised.

A trace's measured times (each transfer's measured begin and end, the worker that ran it,
a run's measured total, and the summary's measured time and bandwidths) differ from one
execution to the next on a real machine; they are set to 0. Everything else -- request,
schedule, predictions, closed forms, verification, title, description -- must be the
same bytes.
"""
import re
import sys

MEASURED_KEYS = ("measured_begin_ns", "measured_end_ns", "measured_time_ns", "worker")


def normalised(text):
    for key in MEASURED_KEYS:
        text = re.sub(r'("%s": )-?[0-9.e+-]+' % key, r"\g<1>0", text)
    # The single-run trace's "summary": the measured time and the bandwidths made from it.
    return re.sub(r'("summary": \{)[^{}]*(\})', r"\1 measured \2", text)


def main(paths):
    if len(paths) < 2:
        print("same_trace.py: give at least two trace files", file=sys.stderr)
        return 2
    texts = [normalised(open(p, encoding="utf-8").read()) for p in paths]
    same = True
    for path, text in zip(paths[1:], texts[1:]):
        if text == texts[0]:
            print(f"same   {path} == {paths[0]} ({len(text)} bytes, measured times aside)")
            continue
        same = False
        at = next((i for i, (a, b) in enumerate(zip(texts[0], text)) if a != b), min(len(text), len(texts[0])))
        print(f"DIFFER {path} != {paths[0]} at byte {at}:\n  {texts[0][max(0, at - 80):at + 80]!r}\n  {text[max(0, at - 80):at + 80]!r}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
