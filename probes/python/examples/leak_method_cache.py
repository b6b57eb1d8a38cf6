"""functools.lru_cache on a method: the cache is shared by the class and keyed by `self`, so it
keeps every Report ever asked for a total alive (and all their rows).

Fixed in fixed_method_cache.py.
"""

import functools
import sys
import time


class Report:
    def __init__(self, n):
        self.rows = [{"price": i * 1.5, "qty": i % 7} for i in range(10)]
        self.n = n

    @functools.lru_cache(maxsize=None)  # holds self forever
    def total(self, column):
        return sum(row[column] for row in self.rows)


def main(seconds):
    grand = 0.0
    deadline = time.monotonic() + seconds
    i = 0
    while time.monotonic() < deadline:
        i += 1
        grand += Report(i).total("price")
        if i % 50 == 0:
            time.sleep(0.005)  # a request arrives now and then
    return grand


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)
