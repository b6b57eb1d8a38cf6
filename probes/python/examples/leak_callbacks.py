"""A registry of callbacks: every Widget subscribes its bound method `on_event`, which holds
the widget; nothing unsubscribes, so closed widgets stay alive in the registry.

Fixed in fixed_callbacks.py.
"""

import sys
import time

LISTENERS = []  # the event bus: callbacks to call on every event


def subscribe(callback):
    LISTENERS.append(callback)


class Widget:
    def __init__(self, name):
        self.name = name
        self.pixels = [[0] * 4 for _ in range(4)]
        subscribe(self.on_event)

    def on_event(self, event):
        self.pixels[0][0] = event


def main(seconds):
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        i += 1
        widget = Widget("widget-%d" % i)
        widget.on_event(i)  # shown once, then closed (but still subscribed)
        if i % 50 == 0:
            time.sleep(0.005)  # a request arrives now and then


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
