"""A Python service whose session registry only grows: every login adds a Session to the dict
at the class attribute `Registry.sessions` and nothing removes it, while 200 route handlers (with
__slots__) each keep a small dict of counters that never grows. Run under the probe (probes/python) with
--no-fork; takes a snapshot after each round and prints its path.
Usage: memcity_probe.py --out DIR --no-fork session_registry.py ROUNDS PER_ROUND"""

import sys

import memcity_probe


class Session:
    def __init__(self, i):
        self.id = i
        self.user = "user-%d" % i
        self.roles = ["reader"]


class Registry:
    sessions = {}


class Handler:
    # Attributes in slots, not a dict: named by the slot (`.counters`) all the same.
    __slots__ = ("route", "counters")

    def __init__(self, route):
        self.route = route
        self.counters = {"hits": 0, "errors": 0, "bytes": 0}


handlers = [Handler("/route/%d" % r) for r in range(200)]


def login(i):
    Registry.sessions["session-%d" % i] = Session(i)
    # Each request touches one handler's counters: they change, but never grow.
    handlers[i % len(handlers)].counters["hits"] += 1


def main(rounds, per_round):
    next_id = 0
    for _ in range(rounds):
        for _ in range(per_round):
            login(next_id)
            next_id += 1
        print(memcity_probe.snapshot("manual"), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
