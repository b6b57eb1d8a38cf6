"""A Tomcat-sized dump series for the data-structure benchmark (README, "Data structures"):
drives a running Tomcat 10 with its examples installed (Debian: tomcat10 tomcat10-examples)
so that sessions pile up — each request without a cookie opens one, with one attribute — and
takes a heap dump with jcmd after each round.

Usage: python3 tomcat_series.py PID OUT_DIR [ROUNDS] [SESSIONS_PER_ROUND]"""

import http.client
import os
import subprocess
import sys


def load(sessions, start):
    conn = http.client.HTTPConnection("127.0.0.1", 8080)
    pages = ["/examples/jsp/num/numguess.jsp", "/examples/servlets/servlet/RequestHeaderExample"]
    for i in range(start, start + sessions):
        path = "/examples/servlets/servlet/SessionExample?dataname=user&datavalue=user-%d" % i
        if i % 10 == 0:
            path = pages[i // 10 % len(pages)]
        conn.request("GET", path)
        conn.getresponse().read()
    conn.close()


def main(pid, out, rounds=3, per_round=15000):
    os.makedirs(out, exist_ok=True)
    for r in range(rounds):
        load(per_round, r * per_round)
        dump = os.path.abspath(os.path.join(out, "tomcat-%d.hprof" % (r + 1)))
        subprocess.run(["jcmd", str(pid), "GC.heap_dump", dump], check=True, capture_output=True)
        print(dump, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], *(int(a) for a in sys.argv[3:]))
