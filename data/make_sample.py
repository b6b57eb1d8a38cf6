#!/usr/bin/env python3
"""Writes the small sample history (a LinkedList<Person> leak among steady background types) in
the three layouts memcity reads: data/sample-leak.json (memcity/1), data/sample-leak-folder/ (one
snapshot file each, the original tool's layout) and data/sample-leak-anttracks/ (AntTracks'
export: trees plus points-to and pointed-from map arrays). Deterministic: re-running it gives the
same files."""
import json, os, random

random.seed(7)
SNAPSHOTS = 8
# package -> [(type, bytes per object, objects at start, growth per snapshot, noise)]
TYPES = {
    "java.lang": [("String", 24, 4000, 900, 0), ("char[]", 48, 4000, 900, 0), ("Object[]", 40, 900, 0, 200),
                  ("Integer", 16, 2500, 0, 600), ("Class", 96, 700, 0, 0)],
    "java.util": [("LinkedList$Node", 24, 100, 450, 0), ("HashMap$Node", 32, 3000, 0, 500),
                  ("ArrayList", 24, 800, 0, 150), ("HashMap", 48, 300, 0, 40), ("LinkedList", 32, 3, 0, 0)],
    "com.example.app": [("Person", 24, 100, 450, 0), ("Order", 40, 600, 0, 300), ("Session", 64, 120, 0, 30),
                        ("Request", 56, 900, -80, 0)],
    "com.example.db": [("Connection", 120, 20, 0, 4), ("ResultSet", 80, 150, 0, 90), ("Row", 32, 1800, 0, 900)],
}
EDGES = [  # (from type, to type, share of target objects referenced)
    ("LinkedList$Node", "Person", 1.0), ("LinkedList$Node", "LinkedList$Node", 1.0),
    ("LinkedList", "LinkedList$Node", 0.01), ("Person", "String", 0.9), ("String", "char[]", 1.0),
    ("HashMap$Node", "String", 0.2), ("HashMap$Node", "Integer", 0.5), ("HashMap", "HashMap$Node", 1.0),
    ("Order", "Person", 0.02), ("Session", "HashMap", 0.4), ("ResultSet", "Row", 1.0), ("Row", "Object[]", 0.8),
    ("Connection", "ResultSet", 0.5), ("ArrayList", "Object[]", 0.5), ("Request", "Session", 1.0),
]


def key(pkg, name=None):
    return "Heap#" + pkg + ("#" + name if name else "")


def snapshot(i):
    packages, counts, sizes = [], {}, {}
    for pkg, types in TYPES.items():
        children = []
        for name, size, start, grow, noise in types:
            objects = max(0, start + grow * i + (random.randint(-noise, noise) if noise else 0))
            counts[name], sizes[name] = objects, size
            children.append({"key": key(pkg, name), "name": name, "role": "Type", "objects": objects,
                             "bytes": objects * size, "children": []})
        packages.append({"key": key(pkg), "name": pkg, "role": "Package",
                         "objects": sum(c["objects"] for c in children),
                         "bytes": sum(c["bytes"] for c in children), "children": children})
    tree = {"key": "Heap", "name": "Heap", "role": "Root", "objects": sum(p["objects"] for p in packages),
            "bytes": sum(p["bytes"] for p in packages), "children": packages}
    pkg_of = {name: pkg for pkg, types in TYPES.items() for name, *_ in types}
    points_to, pointed_from = {}, {}
    for a, b, share in EDGES:
        referents = int(counts[b] * share)
        referrers = min(counts[a], referents)
        if referents == 0 or referrers == 0:
            continue
        ka, kb = key(pkg_of[a], a), key(pkg_of[b], b)
        points_to.setdefault(ka, {})[kb] = referents
        pointed_from.setdefault(kb, {})[ka] = referrers
    time = 1000 + 1500 * i
    return {"time_ms": time, "gc_id": 3 + 2 * i, "label": f"GC #{3 + 2 * i}", "tree": tree,
            "points_to": points_to, "pointed_from": pointed_from,
            "heap": {"reachable_bytes": tree["bytes"], "used_before_gc": int(tree["bytes"] * 1.6),
                     "used_after_gc": tree["bytes"] + 4096, "gc_start_ms": time - 12, "gc_end_ms": time}}


def anttracks_node(node):
    out = {k: node[k] for k in ("key", "name", "role", "bytes", "objects")}
    if node["children"]:
        out["children"] = [anttracks_node(c) for c in node["children"]]
    return out


here = os.path.dirname(os.path.abspath(__file__))
snaps = [snapshot(i) for i in range(SNAPSHOTS)]
history = {"format": "memcity/1", "metric_names": {"objects": "objects", "bytes": "bytes"}, "snapshots": snaps}
with open(os.path.join(here, "sample-leak.json"), "w") as f:
    json.dump(history, f, indent=1)
folder = os.path.join(here, "sample-leak-folder")
os.makedirs(folder, exist_ok=True)
for i, s in enumerate(snaps):
    with open(os.path.join(folder, f"snapshot-{i:03}.json"), "w") as f:
        json.dump(s, f, indent=1)
at = os.path.join(here, "sample-leak-anttracks")
for sub in ("", "points-to-maps", "pointed-from-maps"):
    os.makedirs(os.path.join(at, sub), exist_ok=True)
for i, s in enumerate(snaps):
    with open(os.path.join(at, f"tree-{i:03}.json"), "w") as f:
        json.dump({"time": s["time_ms"], "root": anttracks_node(s["tree"])}, f, indent=1)
for sub, field in (("points-to-maps", "points_to"), ("pointed-from-maps", "pointed_from")):
    with open(os.path.join(at, sub, "maps.json"), "w") as f:
        json.dump([{"time": s["time_ms"], "pointerMap": s[field]} for s in snaps], f, indent=1)
