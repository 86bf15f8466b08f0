#!/usr/bin/env python3
"""One line per client of a `uds-migrate bench --format json` report: queries/s
per transport, the socket/TCP ratio with its interval and verdict, the floor
and otherCores. Used by scripts/bench-placement.sh and bench-gomaxprocs.sh.
Usage: bench-summary.py REPORT.json"""
import json, sys, os
d = json.load(open(sys.argv[1]))
fl = d.get("floor") or {}
for c in d["clients"]:
    r = c["ratio"]
    q = {t["transport"]: round(t["queriesPerSecond"]) for t in c["transports"]}
    print(f'{os.path.basename(sys.argv[1]):22} {c["client"]:8} tcp {q.get("tcp")} socket {q.get("socket")} ratio {r["estimate"]:.3f} ({r["low"]:.3f}-{r["high"]:.3f}) {c["verdict"]}; floor tcp {fl.get("tcpRoundTripUs", 0):.1f} socket {fl.get("socketRoundTripUs", 0):.1f} µs; otherCores {d["machine"].get("otherCores")}')
