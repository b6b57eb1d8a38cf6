#!/usr/bin/env python3
"""A second memcity WebSocket client, not written in Rust (PyPI `websockets`).

Usage: ws_client.py ws://HOST:PORT

Against a fresh server: pushes a one-snapshot history and a live snapshot, checks each reply,
checks that a bad snapshot is refused with an error naming its JSON path and changes nothing,
and reads the history back. Exits 0 when every check holds, 1 with the reason otherwise.
"""

import json
import sys

from websockets.sync.client import connect


def snapshot(time_ms, leaves):
    children = [
        {"key": f"Heap#T{i}", "name": f"T{i}", "role": "Type", "objects": i + 1, "bytes": 16 * (i + 1)}
        for i in range(leaves)
    ]
    return {
        "time_ms": time_ms,
        "tree": {
            "key": "Heap",
            "name": "Heap",
            "role": "Root",
            "objects": sum(c["objects"] for c in children),
            "bytes": sum(c["bytes"] for c in children),
            "children": children,
        },
    }


def ask(ws, message):
    ws.send(json.dumps(message))
    return json.loads(ws.recv(timeout=20))


def check(condition, what, reply):
    if not condition:
        sys.exit(f"ws_client.py: {what}: reply was {json.dumps(reply)}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with connect(sys.argv[1], open_timeout=20, max_size=None) as ws:
        first = snapshot(1000, 2)
        reply = ask(ws, {"type": "history", "format": "memcity/1", "snapshots": [first]})
        check(reply.get("ok") is True and reply.get("snapshots") == 1, "history accepted", reply)

        second = snapshot(2000, 3)
        reply = ask(ws, {"type": "snapshot", "snapshot": second})
        check(reply.get("ok") is True, "snapshot accepted", reply)
        check(reply.get("index") == 1 and reply.get("snapshots") == 2, "snapshot appended as index 1", reply)
        version = reply.get("version")

        bad = snapshot(3000, 1)
        bad["tree"]["children"][0]["bytes"] = -1
        reply = ask(ws, {"type": "snapshot", "snapshot": bad})
        check(reply.get("ok") is False, "bad snapshot refused", reply)
        check("snapshot.tree.children[0].bytes" in reply.get("error", ""), "error names the JSON path", reply)

        reply = ask(ws, {"type": "get"})
        check(reply.get("ok") is True and reply.get("version") == version, "nothing changed", reply)
        check(reply["history"]["snapshots"] == [first, second], "history reads back equal", reply)
    print("ws_client.py: all checks passed")


if __name__ == "__main__":
    main()
