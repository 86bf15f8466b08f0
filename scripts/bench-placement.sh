#!/usr/bin/env bash
# Issue 24: the default pgx bench and the interleaved pgx,pgbench bench
# disagreed on one quiet machine (docs/runs/2026-12-01-quiet: five default
# runs 0.908-0.987, the interleaved run's pgx 1.084). This runs, back to
# back and with 20 rounds each, the variations that separate the causes:
#   default        uds-migrate bench (pgx)
#   interleaved    --client pgx,pgbench
#   one-cpu        taskset -c 0 (client and the throwaway server on one
#                  CPU: no wake-up crosses CPUs)
#   gomaxprocs1    GOMAXPROCS=1 (one Go scheduler P: no hand-off of the
#                  P to a second thread while a read blocks)
#   default-again  the first run repeated, for drift
# Raw JSON/stderr and machine.log go to $OUT (default docs/runs/DATE-placement).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/docs/runs/$(date -u +%F)-placement}
mkdir -p "$OUT"
go build -o "$OUT/../.uds-migrate-placement" ./cmd/uds-migrate
bin=$OUT/../.uds-migrate-placement
log() { printf '%s %s: %s; load average %s\n' "$1" "$2" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.log"; }
run() {
	local name=$1
	shift
	echo "$*" >"$OUT/$name.cmd"
	log "$name" before
	# Every 0.5 s, the CPU each bench thread and each benchmark backend last
	# ran on (ps psr), to see whether client and server share one.
	(while sleep 0.5; do
		printf '%s' "$(date -u +%T.%N | cut -c1-12)"
		ps -eLo psr=,comm=,args= | awk '/uds-migrate bench|\.uds-migrate-placement/ && !/awk/ {c[$1]++} /postgres: .*uds_bench/ {s[$1]++} END {printf " client-threads"; for (k in c) printf " cpu%s:%d", k, c[k]; printf " backends"; for (k in s) printf " cpu%s:%d", k, s[k]; print ""}'
	done >"$OUT/$name.placement") &
	local sampler=$!
	"$@" --format json --rounds 20 >"$OUT/$name.json" 2>"$OUT/$name.err" || echo "exit $?" >>"$OUT/$name.err"
	kill "$sampler" 2>/dev/null || true
	log "$name" after
}
run default "$bin" bench
run interleaved "$bin" bench --client pgx,pgbench
run one-cpu taskset -c 0 "$bin" bench
run gomaxprocs1 env GOMAXPROCS=1 "$bin" bench
run default-again "$bin" bench
rm -f "$bin"
for f in "$OUT"/*.json; do
	python3 scripts/bench-summary.py "$f"
done | tee "$OUT/summary.txt"
