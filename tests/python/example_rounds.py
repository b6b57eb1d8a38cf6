"""Runs a request-handling example of probes/python/examples by count, not by time: ROUNDS rounds
of PER_ROUND requests (its handle_request, users cycling through 50 as in its main), a snapshot
after each round, so that a loaded machine takes as many heap files as a quiet one. Run under the
probe (probes/python) with --no-fork; prints each snapshot's path.
Usage: memcity_probe.py --out DIR --no-fork example_rounds.py EXAMPLE.py ROUNDS PER_ROUND"""

import importlib.util
import os
import sys

import memcity_probe


def main(path, rounds, per_round):
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    example = importlib.util.module_from_spec(spec)
    # A module of the program, as the example is when run as the script: what it keeps stays
    # reachable until the exit snapshot.
    sys.modules[name] = example
    spec.loader.exec_module(example)
    i = 0
    for _ in range(rounds):
        for _ in range(per_round):
            i += 1
            example.handle_request("user-%d" % (i % 50))
        print(memcity_probe.snapshot("manual"), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
