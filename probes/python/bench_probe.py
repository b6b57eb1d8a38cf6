#!/usr/bin/env python3
"""Figures for the Python probe (docs/python.md, README): what a snapshot of a big heap costs
and how big its file is, and how much slower a steadily allocating program runs under the probe.

    python3 probes/python/bench_probe.py --objects 1000000   # snapshot cost, bytes per object
    python3 probes/python/bench_probe.py --slowdown          # program time, probe vs none
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

WORKLOAD = """
import sys, time
class Order:
    def __init__(self, i):
        self.id = i
        self.lines = [("sku-%d" % (i % 97), i % 5) for _ in range(3)]
kept = []
t = time.perf_counter()
for i in range(int(sys.argv[1])):
    order = Order(i)
    if i % 50 == 0:
        kept.append(order)   # the heap grows steadily; the rest is garbage at once
print("%.3f" % (time.perf_counter() - t))
"""


def meta(path):
    with open(path, "rb") as f:
        data = f.read()
    at = data.rfind(b"META")
    return json.loads(data[at + 16:len(data) - 16]), len(data)


def snapshot_cost(objects, fork, sites):
    import memcity_probe

    class Item:
        __slots__ = ("n", "name", "tags")

        def __init__(self, n):
            self.n = n
            self.name = "item-%d" % n
            self.tags = (n, n + 1)

    # Item, its name, its tuple and two ints: five objects each.
    heap = [Item(n) for n in range(objects // 5)]
    out = tempfile.mkdtemp(prefix="memcity-bench-")
    probe = memcity_probe.start(out, every_ms=10 ** 9, sites=sites, fork=fork)
    began = time.perf_counter()
    path = memcity_probe.snapshot()
    paused = time.perf_counter() - began
    probe.running_child(wait=True)
    total = time.perf_counter() - began
    memcity_probe.stop(final=False)
    info, size = meta(path)
    del heap
    return {
        "mode": ("fork" if fork else "in-process") + (", sites" if sites else ", no sites"),
        "objects": info["objects"],
        "program paused ms": round(paused * 1000, 1),
        "snapshot ms": round(total * 1000, 1),
        "walk ms": info["walk_ms"],
        "encode ms": info["encode_ms"],
        "bytes per object": round(size / info["objects"], 1),
    }


def slowdown(iterations):
    with tempfile.TemporaryDirectory(prefix="memcity-bench-") as tmp:
        script = os.path.join(tmp, "workload.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        runs = {
            "plain": [sys.executable, script, str(iterations)],
            "tracemalloc only": [sys.executable, "-X", "tracemalloc=1", script, str(iterations)],
            "probe --every-ms 1000": [sys.executable, os.path.join(HERE, "memcity_probe.py"), "--out",
                                      os.path.join(tmp, "a"), "--every-ms", "1000", script,
                                      str(iterations)],
            "probe --every-ms 1000 --no-sites": [
                sys.executable, os.path.join(HERE, "memcity_probe.py"), "--out", os.path.join(tmp, "b"),
                "--every-ms", "1000", "--no-sites", script, str(iterations)],
        }
        figures = {}
        # Runs alternate and the fastest of three counts: other processes only ever slow a run.
        for _ in range(3):
            for name, command in runs.items():
                began = time.perf_counter()
                out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                run = {"loop s": float(out.split()[-1]), "whole run s": round(time.perf_counter() - began, 3)}
                if name not in figures or run["loop s"] < figures[name]["loop s"]:
                    figures[name] = run
        plain = figures["plain"]["loop s"]
        for name, f in figures.items():
            f["slowdown"] = round(f["loop s"] / plain, 2)
            snaps = os.path.join(tmp, "a" if "sites" not in name else "b")
            if name.startswith("probe") and os.path.isdir(snaps):
                f["snapshots"] = len([n for n in os.listdir(snaps) if n.endswith(".mcheap")])
        return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--objects", type=int, default=0, help="snapshot a heap of about N objects")
    parser.add_argument("--mode", choices=["fork", "in-process", "no-sites"], help=argparse.SUPPRESS)
    parser.add_argument("--slowdown", action="store_true", help="time a steadily allocating program")
    parser.add_argument("--iterations", type=int, default=1_000_000, help="workload size for --slowdown")
    options = parser.parse_args()
    if options.mode:
        fork, sites = {"fork": (True, True), "in-process": (False, True), "no-sites": (False, False)}[options.mode]
        print(json.dumps(snapshot_cost(options.objects, fork, sites)))
    elif options.objects:
        # Each mode in a fresh interpreter: tracemalloc, once started, slows everything after.
        for mode in ("fork", "in-process", "no-sites"):
            subprocess.run([sys.executable, __file__, "--objects", str(options.objects), "--mode", mode], check=True)
    if options.slowdown:
        print(json.dumps(slowdown(options.iterations), indent=1))


if __name__ == "__main__":
    main()
