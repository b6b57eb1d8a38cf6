"""leak_sessions.py fixed: one session per user, replaced when the user comes back, so the
number of live sessions stays bounded by the number of users."""

import sys
import time

SESSIONS = {}  # user -> their current session


class Session:
    def __init__(self, user):
        self.user = user
        self.cart = [("item-%d" % i, i * 0.5) for i in range(8)]


def handle_request(user):
    session = Session(user)
    SESSIONS[user] = session
    page = ["<li>%s</li>" % name for name, _ in session.cart]
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
