#!/usr/bin/env bash
# Issue 24: does one Go scheduler P (GOMAXPROCS=1) make the in-process pgx
# client's socket/TCP ratio agree with pgbench's? Side by side in the same
# runs: each run is `bench --client pgx,pgbench` (pgx and pgbench interleave
# round by round on one server), alternating GOMAXPROCS=1 and the default,
# $PAIRS times; then $PAIRS plain default-client runs under each setting.
# Raw JSON/stderr, the commands and machine.log go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/docs/runs/$(date -u +%F)-gomaxprocs}
PAIRS=${PAIRS:-5}
ROUNDS=${ROUNDS:-20}
mkdir -p "$OUT"
bin=$OUT/../.uds-migrate-gomaxprocs
go build -o "$bin" ./cmd/uds-migrate
git rev-parse HEAD >"$OUT/commit"
log() { printf '%s %s: %s; load average %s\n' "$1" "$2" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.log"; }
run() {
	local name=$1
	shift
	echo "$*" >"$OUT/$name.cmd"
	log "$name" before
	"$@" --format json --rounds "$ROUNDS" >"$OUT/$name.json" 2>"$OUT/$name.err" || echo "exit $?" >>"$OUT/$name.err"
	log "$name" after
}
for i in $(seq "$PAIRS"); do
	run "both-p1-$i" env GOMAXPROCS=1 "$bin" bench --client pgx,pgbench
	run "both-default-$i" "$bin" bench --client pgx,pgbench
done
for i in $(seq "$PAIRS"); do
	run "pgx-p1-$i" env GOMAXPROCS=1 "$bin" bench
	run "pgx-default-$i" "$bin" bench
done
rm -f "$bin"
for f in "$OUT"/*.json; do
	python3 scripts/bench-summary.py "$f"
done | tee "$OUT/summary.txt"
