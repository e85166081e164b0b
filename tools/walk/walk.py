#!/usr/bin/env python3
"""Counts the folder switches of one call's walk (tools/walk/walk.sh).

Input: the events walk_trace.c recorded (E/X function entry and exit,
W a PMPI call that moves bytes). Each function is placed in the top src/
folder of its definition (addr2line): src/frames/wire/frame.cpp is in
frames; generated entry points count as
boundary, whose table they come from. A switch is a change of the folder
of the function running: a call into another folder, or a return to one.
Printed: the switches before the first byte goes to the wire and in all,
counting every call, and again leaving out leaf calls (a call that enters
no further function: an accessor such as config() or a byte store, which a
reader does not follow); then the walk without them as a folder sequence.
"""
import collections
import os
import re
import subprocess
import sys


def resolve(events):
    """{(object, offset): (function, folder or None)} via addr2line."""
    by_object = collections.defaultdict(set)
    for e in events:
        if e[0] in "EX":
            by_object[e[1]].add(e[2])
    where = {}
    for obj, offsets in by_object.items():
        offsets = sorted(offsets)
        out = subprocess.run(["addr2line", "-f", "-C", "-e", obj] + offsets,
                             capture_output=True, text=True, check=True).stdout.splitlines()
        for off, fn, loc in zip(offsets, out[0::2], out[1::2]):
            # A header reached through a layer's include root
            # (build/layers/X/X -> its src/ directory) is placed where it lives.
            path = os.path.realpath(loc.rsplit(":", 1)[0])
            m = re.search(r"/src/([a-z0-9_]+)/", path)
            folder = m.group(1) if m else ("boundary" if "/generated/" in loc else None)
            where[(obj, off)] = (fn.replace("(anonymous namespace)::", "").split("(")[0], folder)
    return where


def leaves(events):
    """Indices of the entries of leaf calls: ones that enter no function."""
    found = set()
    for i, e in enumerate(events):
        if e[0] == "E" and i + 1 < len(events) and events[i + 1][0] == "X":
            found.update((i, i + 1))
    return found


def walk(events, where, skip=frozenset()):
    """Yields (folder, function, wire) as the running folder changes;
    events whose indices are in `skip` are left out."""
    stack = []

    def running():
        return next(((f, n) for n, f in reversed(stack) if f), (None, None))

    last = None
    for i, e in enumerate(events):
        if i in skip:
            continue
        if e[0] == "W":
            yield (last, e[1], True)
            continue
        fn, folder = where[(e[1], e[2])]
        if e[0] == "E":
            stack.append((fn, folder))
        elif stack:
            stack.pop()
        now, name = running()
        if now and now != last:
            yield (now, name, False)
            last = now


def main():
    events = [line.split() for line in open(sys.argv[1])]
    where = resolve(events)
    for title, skip in (("every call", frozenset()), ("leaf calls left out", leaves(events))):
        steps = list(walk(events, where, skip))
        first_wire = next((i for i, s in enumerate(steps) if s[2]), len(steps))
        switches = lambda part: sum(1 for s in part if not s[2]) - 1
        print(f"folder switches, {title}: {switches(steps[:first_wire])} before the first byte "
              f"moves, {switches(steps)} in all")
    print("walk, leaf calls left out:")
    for folder, name, wire in steps:
        print(f"  -> {name}" if wire else f"{folder:10s} {name}")


main()
