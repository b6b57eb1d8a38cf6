"""A lookup cache keyed by instances of a class without __eq__ and __hash__: every lookup of
the same city and day makes a new key, so the dict at the class attribute `Service.cache` grows
with keys equal by value (10 cities x 3 days: 30 distinct). Each key's city is a str built at
run time and its day an int above CPython's cached small ints, so keys equal by value share no
field object: only their values tell them equal. One city is hostile (a control character and
`</script>`). With `fixed` the key class compares by value and the cache stops at 30 entries.
Run under the probe (probes/python) with --no-fork; takes a snapshot after each round and
prints its path.
Usage: memcity_probe.py --out DIR --no-fork key_cache.py ROUNDS PER_ROUND [fixed]"""

import sys

import memcity_probe

CITIES = ["Linz", "Graz", "Wien", "Salzburg", "Innsbruck", "Brno", "Kosice", "Krakow", "Bratislava",
          "Praha</script>\x1b[2J\x07"]
FIRST_DAY = 1000


class QueryKey:
    def __init__(self, city, day):
        self.city = city
        self.day = day


class FixedKey(QueryKey):
    def __eq__(self, other):
        return isinstance(other, QueryKey) and (other.city, other.day) == (self.city, self.day)

    def __hash__(self):
        return hash((self.city, self.day))


class Service:
    cache = {}


def locate(key_class, i):
    name = CITIES[i % len(CITIES)]
    # Fresh objects, equal by value to the last round's: a sliced and joined str, a big int.
    city, day = name[:2] + name[2:], FIRST_DAY + i % 3
    key = key_class(city, day)
    found = Service.cache.get(key)
    if found is None:
        found = Service.cache[key] = "%s#%d" % (city, day)
    return found


def main(rounds, per_round, key_class):
    next_id = 0
    for _ in range(rounds):
        for _ in range(per_round):
            locate(key_class, next_id)
            next_id += 1
        print(memcity_probe.snapshot("manual"), flush=True)


if __name__ == "__main__":
    fixed = len(sys.argv) > 3 and sys.argv[3] == "fixed"
    main(int(sys.argv[1]), int(sys.argv[2]), FixedKey if fixed else QueryKey)
