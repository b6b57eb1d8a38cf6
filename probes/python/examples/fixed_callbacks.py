"""leak_callbacks.py fixed: the registry holds weak references to the callbacks
(weakref.WeakMethod), so a closed widget is freed and its entry dropped."""

import sys
import time
import weakref

LISTENERS = []


def subscribe(callback):
    LISTENERS.append(weakref.WeakMethod(callback, LISTENERS.remove))


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
        widget.on_event(i)
        if i % 50 == 0:
            time.sleep(0.005)  # a request arrives now and then


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
