"""One object whose attributes hold one value of each kind the probe writes (a str joined at
run time, a hostile str, a long str, a big int, floats, bytes, None, a bool), kept in the dict
at the module global `HOLDERS`. Run under the probe (probes/python) with --no-fork; takes one
snapshot and prints its path.
Usage: memcity_probe.py --out DIR --no-fork atoms.py ROUNDS PER_ROUND (both ignored)"""

import memcity_probe


class Holder:
    def __init__(self):
        name = "Linz"
        self.city = name[:2] + name[2:]
        self.hostile = "</script>\x1b[31m\x07\u2028"
        self.long = "x" * 1000
        self.big = 12345678901234567890123
        self.day = -1000 - len(name)
        self.ratio = 0.1
        self.low = float("-inf")
        self.raw = b"\x00ab'"
        self.nothing = None
        self.flag = True


HOLDERS = {"holder": Holder()}

if __name__ == "__main__":
    print(memcity_probe.snapshot("manual"), flush=True)
