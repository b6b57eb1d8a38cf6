"""A toy web server that keeps every session it ever opened in a module-level list.

Leak: SESSIONS only grows; each Session keeps its cart alive. Fixed in fixed_sessions.py.
Run: python3 probes/python/memcity_probe.py --out snaps probes/python/examples/leak_sessions.py
"""

import sys
import time

SESSIONS = []  # every session ever opened: nothing removes them


class Session:
    def __init__(self, user):
        self.user = user
        self.cart = [("item-%d" % i, i * 0.5) for i in range(8)]


def handle_request(user):
    session = Session(user)
    SESSIONS.append(session)
    page = ["<li>%s</li>" % name for name, _ in session.cart]  # garbage: freed after the request
    return len(page)


def main(seconds):
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        i += 1
        handle_request("user-%d" % (i % 50))
        if i % 50 == 0:
            time.sleep(0.005)  # a request arrives now and then


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
