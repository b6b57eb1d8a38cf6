"""leak_method_cache.py fixed: the cache lives on the instance, so it dies with its Report."""

import sys
import time


class Report:
    def __init__(self, n):
        self.rows = [{"price": i * 1.5, "qty": i % 7} for i in range(10)]
        self.n = n
        self._totals = {}

    def total(self, column):
        if column not in self._totals:
            self._totals[column] = sum(row[column] for row in self.rows)
        return self._totals[column]


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
