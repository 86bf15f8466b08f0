#!/usr/bin/env bash
# Re-measures every benchmark figure docs/benchmarks.md quotes for issue 24
# and keeps the raw output, verbatim, in docs/runs/<UTC date>/ (or $OUT):
#
#   bash scripts/bench-headlines.sh                 # every section below
#   bash scripts/bench-headlines.sh client clients  # only those sections
#
# Sections:
#   client    what each client costs per query, per transport, against one
#             server started here (client-cost.txt): user-space instructions
#             (valgrind --tool=callgrind, which counts the same whatever the
#             load), system calls (strace -f -c) and, load-dependent, CPU
#             time and voluntary context switches (getrusage)
#   clients   one interleaved `bench --client pgbench,pgx` (the default
#             client against pgbench, same server, same rounds)
#   repeat    five default `bench` runs back to back
#   jdbc      seed 000 on the Docker engine: the JDBC client in a container
#             on examples/spring-postgres, migrated, for lookup-small,
#             lookup-large and heavy (`bench --compose --client jdbc`)
#   http      seed 004 on the Docker engine: `bench http --compose` on the
#             nginx -> app server case, migrated
#
# Every run is preceded and followed by a line in machine.log: the load
# average, and the CPU that processes other than this script's used in the
# 5 s before (from /proc/stat; the busiest of them are listed). The tool's
# own reports carry its busy-machine verdict; only a run it does not flag
# was measured on a quiet machine.
#
# Needs: go, PostgreSQL's server binaries and pgbench, valgrind, strace; for
# jdbc/http a Docker engine with the test images (scripts/engine.sh up).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${OUT:-$ROOT/docs/runs/$(date -u +%F)}
WORK=$(mktemp -d /tmp/bench-headlines.XXXXXX)
mkdir -p "$OUT"
BENCH_ARGS=${BENCH_ARGS:-} # extra bench flags, for trying the script out; the kept runs use none
sections=("$@")
((${#sections[@]})) || sections=(client clients repeat jdbc http)

log() { echo "bench-headlines: $*" >&2; }

# machine NAME WHEN appends a line to machine.log: the load average, and
# the cores that processes outside this script kept busy over 5 s (busy
# time of /proc/stat: user, nice, system, steal; this script only waits
# meanwhile), with the busiest of them as top saw them in those 5 s.
machine() {
	local a b t0 t1 top
	t0=$(date +%s.%N)
	a=$(awk '/^cpu /{print $2+$3+$4+$9}' /proc/stat)
	top=$(top -b -n 2 -d 5 -w 200 | awk '/^top -/{frame++} frame == 2 && $1 ~ /^[0-9]+$/ && n < 4 {printf "%s %s%%, ", $12, $9; n++}')
	b=$(awk '/^cpu /{print $2+$3+$4+$9}' /proc/stat)
	t1=$(date +%s.%N)
	printf '%s %s: %s; load average %s (1/5/15 min); other processes %s cores over %s s; busiest: %s\n' \
		"$1" "$2" "$(date -u +%FT%TZ)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
		"$(awk -v a="$a" -v b="$b" -v s="$(echo "$t1 - $t0" | bc)" 'BEGIN{printf "%.2f", (b-a)/100/s}')" \
		"$(echo "$t1 - $t0" | bc | cut -c1-4)" "${top%, }" >>"$OUT/machine.log"
}

# run NAME CMD... runs CMD with stdout to NAME.json (or NAME.txt when
# NAME ends in .txt) and stderr to NAME.err, between two machine lines.
run() {
	local name=$1 rc=0 out
	shift
	out=$OUT/$name.json
	[[ $name == *.txt ]] && out=$OUT/$name && name=${name%.txt}
	machine "$name" before
	# The command as anyone re-runs it: uds-migrate built from build.txt's
	# commit, in the seed's folder when there is one.
	local cmd=$* where=
	[[ $PWD == "$WORK"/* ]] && where=" (in the ${PWD#"$WORK"/} project, set up by scripts/bench-headlines.sh)"
	echo "\$ ${cmd//$WORK\//}$where" >"$OUT/$name.cmd"
	"$@" >"$out" 2>"$OUT/$name.err" || rc=$?
	echo "rc=$rc" >>"$OUT/$name.cmd"
	machine "$name" after
	return "$rc"
}

build() {
	[[ -x $WORK/uds-migrate ]] && return 0
	log "building uds-migrate and bench.test"
	go build -o "$WORK/uds-migrate" ./cmd/uds-migrate
	go test -c -o "$WORK/bench.test" ./bench
	{
		echo "commit $(git rev-parse HEAD)"
		git status --short --untracked-files=no | sed 's/^/uncommitted: /'
		go version
		uname -srm
		grep -m1 'model name' /proc/cpuinfo
		echo "cores $(nproc)"
	} >"$OUT/build.txt"
	if [[ -n ${BEFORE:-} ]]; then
		# The client as it was at $BEFORE, for a before/after comparison.
		mkdir -p "$WORK/before"
		git archive "$BEFORE" | tar -x -C "$WORK/before"
		(cd "$WORK/before" && go test -c -o "$WORK/bench-before.test" ./bench)
		echo "before: $(git rev-parse "$BEFORE") (pgx@before)" >>"$OUT/build.txt"
	fi
}

# bindir is where the server binaries and the real pgbench live (Debian's
# /usr/bin/pgbench is a Perl wrapper that valgrind would measure instead).
bindir() {
	local d
	for d in "${PGBIN:-}" /usr/lib/postgresql/*/bin; do
		[[ -n $d && -x $d/initdb && -x $d/pgbench ]] && { echo "$d"; return; }
	done
	dirname "$(command -v initdb)"
}

# server starts a PostgreSQL of the system binaries on a free port of
# 127.0.0.1 (from 55432 up) and a socket in $WORK/sock (trust auth: only
# this script uses it; fsync off, shared_buffers 128MB as the embedded
# target).
server() {
	[[ -n ${PGPORT_HB:-} ]] && return 0
	local bin as=() port=55432
	while ss -ltn | awk '{print $4}' | grep -q ":$port\$"; do port=$((port + 1)); done
	bin=$(bindir)
	mkdir -p "$WORK/sock"
	[[ $(id -u) -eq 0 ]] && { chown -R postgres "$WORK"; as=(runuser -u postgres --); }
	"${as[@]}" "$bin/initdb" -D "$WORK/data" -A trust -U postgres >"$WORK/initdb.log" 2>&1
	"${as[@]}" "$bin/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w \
		-o "-p $port -k $WORK/sock -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=128MB" start >/dev/null ||
		{ tail -5 "$WORK/server.log" >&2; return 1; }
	PGPORT_HB=$port
	"$bin/psql" -q -h "$WORK/sock" -p "$port" -U postgres -c 'CREATE DATABASE uds_bench' postgres
	"$bin/postgres" --version >>"$OUT/build.txt"
	export UDS_BENCH_TCP="postgres://postgres@127.0.0.1:$port/uds_bench?sslmode=disable" UDS_BENCH_SOCKET_DIR=$WORK/sock
}

cleanup() {
	if [[ -n ${PGPORT_HB:-} ]]; then
		local as=()
		[[ $(id -u) -eq 0 ]] && as=(runuser -u postgres --)
		"${as[@]}" "$(bindir)/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

# client_cmd CLIENT TRANSPORT QUERIES prints the command that runs QUERIES
# lookup-small queries with CLIENT (pgx, pgx@before, pgbench) over
# TRANSPORT, one connection, -M prepared.
client_cmd() {
	local client=$1 t=$2 n=$3
	case $client in
	pgx) echo "$WORK/bench.test" -test.run '^$' -test.bench "LookupSmall/pgx/$t\$" -test.benchtime "${n}x" ;;
	pgx@before) echo "$WORK/bench-before.test" -test.run '^$' -test.bench "LookupSmall/pgx/$t\$" -test.benchtime "${n}x" ;;
	pgbench)
		local host=127.0.0.1
		[[ $t == socket ]] && host=$WORK/sock
		echo "$(bindir)/pgbench" -n -M prepared -c 1 -j 1 -t $((n / 3)) -D rows=1000 -f "$ROOT/templates/pgbench/lookup-small.sql" -h "$host" -p "$PGPORT_HB" -U postgres uds_bench
		;;
	esac
}

# per A B N prints (B-A)/N.
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN{printf "%.3f", (b-a)/n}'; }

# PERF_EVENTS are software events and system-call tracepoints: counted by
# the kernel, without slowing the client as ptrace (strace) does.
PERF_EVENTS=context-switches,cpu-migrations,task-clock,raw_syscalls:sys_enter
for s in read write ppoll poll recvfrom sendto futex nanosleep epoll_pwait sched_yield; do
	PERF_EVENTS+=,syscalls:sys_enter_$s
done

# perf_counts CMD... runs CMD under perf stat and prints "event value"
# lines (task-clock in ms).
perf_counts() {
	perf stat -x, -e "$PERF_EVENTS" -o "$WORK/perf.out" -- "$@" >"$WORK/perf.log" 2>&1 ||
		{ tail -20 "$WORK/perf.log" >&2; return 1; }
	awk -F, '$1 ~ /^[0-9.]+$/ {sub(/^(raw_)?syscalls:sys_enter_?/, "", $3); if ($3 == "") $3 = "syscalls"; print $3, $1}' "$WORK/perf.out"
}

# section_client: per query, the difference of two runs (N1 and N2 queries)
# divided by N2-N1, so start-up, connection and set-up cancel out.
section_client() {
	build
	server
	# lookup-small's tables, once (the pgx benchmark sets them up too).
	"$WORK/bench.test" -test.run '^$' -test.bench 'LookupSmall/pgx/socket$' -test.benchtime 1x >/dev/null
	local n1=${N1:-3000} n2=${N2:-15000} f="$OUT/client-cost.txt" c t n clients=(pgx pgbench)
	[[ -n ${BEFORE:-} ]] && clients=(pgx@before pgx pgbench)
	machine client-cost before
	{
		echo "# What each client costs per query: lookup-small, 1 connection, -M prepared,"
		echo "# one PostgreSQL started by scripts/bench-headlines.sh (build.txt)."
		echo "# Every figure is (run of $n2 queries - run of $n1 queries) / $((n2 - n1)),"
		echo "# so start-up, connections and set-up cancel out."
		echo "# pgx: bench.test's BenchmarkLookupSmall/pgx, the default client's query"
		echo "#   path (PgxClient.query); pgx@before: the same at the commit in build.txt."
		echo "# pgbench: $(bindir)/pgbench on the same script."
		echo "# Ir: user-space instructions (valgrind --tool=callgrind; pgx: inside"
		echo "#   PgxClient.exec and Runner.NextCommand, the protocol and the script,"
		echo "#   --toggle-collect: not its yield every 5 ms, which valgrind's slowness"
		echo "#   would turn into one every few queries; pgbench: the whole process)."
		echo "#   Instruction counts do not depend on the machine's load; pgbench's repeat"
		echo "#   exactly, pgx's less so (the runtime's hand-offs inside system calls"
		echo "#   depend on timing), hence two repetitions."
		echo "# perf: kernel-counted context switches and system calls of the whole"
		echo "#   client process, every thread (perf stat, software events and"
		echo "#   syscall tracepoints); task-clock is CPU time, which load inflates."
		echo "# strace: strace -f -c calls by name (ptrace slows every call, which"
		echo "#   changes how often a client finds its answer already there)."
	} >"$f"
	# GODEBUG=asyncpreemptoff=1 GOGC=off: callgrind cannot follow the Go
	# runtime's preemption signals (it aborts, also during a collection's
	# mark termination); the client's query loop allocates nothing
	# (TestNextCommandDoesNotAllocate) and never needs preempting.
	export PGSSLMODE=disable
	for c in "${clients[@]}"; do
		for t in tcp socket; do
			local ir=() p1 p2 toggle=() rep
			[[ $c == pgx* ]] && toggle=(--toggle-collect='*PgxClient).exec' --toggle-collect='*Runner).NextCommand')
			# Twice: the Go runtime's own work inside the query path (a system
			# call's slow exit, a hand-off) depends on timing even under
			# valgrind, so pgx's counts differ a little from run to run.
			for rep in 1 2; do
				for n in $n1 $n2; do
					# shellcheck disable=SC2046
					GODEBUG=asyncpreemptoff=1 GOGC=off valgrind --tool=callgrind "${toggle[@]}" --callgrind-out-file="$WORK/cg.out" $(client_cmd "$c" "$t" "$n") >"$WORK/cg.log" 2>&1 ||
						{ grep -v '  by 0x' "$WORK/cg.log" | head -40 >&2; return 1; }
					ir+=("$(awk '/^summary:/{print $2}' "$WORK/cg.out")")
				done
			done
			for n in $n1 $n2; do
				# shellcheck disable=SC2046
				strace -f -c -o "$WORK/st.$n" $(client_cmd "$c" "$t" "$n") >"$WORK/st.log" 2>&1 ||
					{ tail -20 "$WORK/st.log" >&2; return 1; }
			done
			# shellcheck disable=SC2046
			p1=$(perf_counts $(client_cmd "$c" "$t" "$n1"))
			# shellcheck disable=SC2046
			p2=$(perf_counts $(client_cmd "$c" "$t" "$n2"))
			{
				printf '%-10s %-6s Ir %s, %s (two repetitions; totals %s)\n' "$c" "$t" "$(per "${ir[0]}" "${ir[1]}" $((n2 - n1)) | cut -d. -f1)" \
					"$(per "${ir[2]}" "${ir[3]}" $((n2 - n1)) | cut -d. -f1)" "${ir[*]}"
				printf '%-10s %-6s perf %s\n' "$c" "$t" "$(join -j1 <(sort <<<"$p1") <(sort <<<"$p2") |
					awk -v n=$((n2 - n1)) '{d = ($3 - $2) / n; if ($1 == "task-clock") printf "cpu-us %.2f, ", d * 1000; else if (d >= 0.005) printf "%s %.2f, ", $1, d}' | sed 's/, $//')"
				printf '%-10s %-6s strace %s\n' "$c" "$t" "$(syscall_diff "$WORK/st.$n1" "$WORK/st.$n2" $((n2 - n1)))"
			} >>"$f"
		done
	done
	# Load-dependent: queries/s, CPU time and sleeps per query, no tool attached.
	echo "# BenchmarkLookupSmall, 20000 queries each, no tool attached (load-dependent; client-vcsw: the whole process):" >>"$f"
	"$WORK/bench.test" -test.run '^$' -test.bench LookupSmall -test.benchtime 20000x -test.count 3 2>&1 | grep '^Benchmark' >>"$f"
	if [[ -n ${BEFORE:-} ]]; then
		echo "# the same, pgx@before (its client-vcsw is the querying thread's alone):" >>"$f"
		"$WORK/bench-before.test" -test.run '^$' -test.bench LookupSmall/pgx -test.benchtime 20000x -test.count 3 2>&1 | grep '^Benchmark' >>"$f"
	fi
	machine client-cost after
}

# syscall_diff A B N prints B-A per N for every system call, largest first.
syscall_diff() {
	awk -v n="$3" '
		FNR == 1 { file++ }
		$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $NF != "syscall" {
			if (file == 1) a[$NF] = $4; else b[$NF] = $4
		}
		END {
			for (k in b) d[k] = (b[k] - a[k]) / n
			for (k in a) if (!(k in b)) d[k] = -a[k] / n
			tot = 0
			for (k in d) if (d[k] >= 0.005 || d[k] <= -0.005) { out[k] = d[k]; tot += d[k] }
			s = ""
			while (length(out)) {
				m = ""; for (k in out) if (m == "" || out[k] > out[m]) m = k
				s = s sprintf("%s %.2f, ", m, out[m]); delete out[m]
			}
			printf "%s(total %.2f)", s, tot
		}' "$1" "$2"
}

section_clients() {
	build
	# shellcheck disable=SC2086
	run clients "$WORK/uds-migrate" bench --client pgbench,pgx --format json $BENCH_ARGS
}

section_repeat() {
	build
	local i
	for i in 1 2 3 4 5; do
		# shellcheck disable=SC2086
		run "default-$i" "$WORK/uds-migrate" bench --format json $BENCH_ARGS
	done
}

# engine exports UDS_ENGINE_TAG, the tag of the test images (built once,
# then cached: scripts/engine.sh).
engine() {
	[[ -n ${UDS_ENGINE_TAG:-} ]] && return 0
	docker info >/dev/null 2>&1 || { log "no Docker engine answers (bash scripts/engine.sh up)"; return 1; }
	UDS_ENGINE_TAG=$(bash scripts/engine.sh images | tail -1)
	export UDS_ENGINE_TAG
	{
		docker version --format 'docker engine {{.Server.Version}}'
		docker compose version
		echo "test images uds-migrate/*:$UDS_ENGINE_TAG (scripts/engine.sh)"
	} >>"$OUT/build.txt"
}

# compose_down removes a seed's project (containers, network, volumes).
compose_down() {
	docker compose -f "$1" -f engine.yml down -v -t 3 >/dev/null 2>&1 || true
}

# Seed 000 (shared case 01, examples/spring-postgres): a Spring service and
# postgres:13.15 over TCP; the published socket gains are ~20% (many small
# lookups), ~10% (1,000,000-row table), none (second-long sorts). Migrated
# by the tool, then the JDBC client runs in a container from the Java
# service's image (the test image standing in for it), TCP over the
# compose network against the socket volume.
section_jdbc() {
	build
	engine
	local dir=$WORK/seed000
	mkdir -p "$dir"
	cp examples/spring-postgres/compose.yml "$dir/"
	cp e2e/docker/testdata/seed000.engine.yml "$dir/engine.yml"
	(cd "$dir" && "$WORK/uds-migrate" -w compose.yml 2>"$OUT/seed000-migrate.err" && cp compose.yml "$OUT/seed000-compose.yml")
	export COMPOSE_PROJECT_NAME=udsm-headlines-seed000
	local rc=0
	# shellcheck disable=SC2086
	(
		cd "$dir"
		run seed000-lookup-small "$WORK/uds-migrate" bench --compose compose.yml --compose engine.yml --client jdbc --format json $BENCH_ARGS &&
			run seed000-lookup-large "$WORK/uds-migrate" bench --compose compose.yml --compose engine.yml --client jdbc --workload lookup-large --rounds 20 --duration 1s --format json $BENCH_ARGS &&
			run seed000-heavy "$WORK/uds-migrate" bench --compose compose.yml --compose engine.yml --client jdbc --workload heavy --rounds 6 --duration 3s --warmup 3s --format json $BENCH_ARGS
	) || rc=$?
	(cd "$dir" && compose_down compose.yml)
	unset COMPOSE_PROJECT_NAME
	return "$rc"
}

# Seed 004 (shared case 11): nginx in front of an app server over TCP; the
# published gain is ~8% more requests/s. The migrated project of golden
# nginx-unicorn, with the bench backend standing in for unicorn
# (e2e/docker/testdata/seed004.engine.yml): nginx from the proxy's image,
# container to container, default proxying and upstream keepalive.
section_http() {
	build
	engine
	local dir=$WORK/seed004
	mkdir -p "$dir"
	go run github.com/rogpeppe/go-internal/cmd/txtar-x -C "$dir" testdata/script/proxy/nginx-unicorn.txtar
	(cd "$dir" && rm -f want/stderr && cp -r want/. . && rm -rf want)
	CGO_ENABLED=0 go build -o "$dir/httpapp" ./e2e/docker/httpapp
	cp e2e/docker/testdata/seed004.engine.yml "$dir/engine.yml"
	export COMPOSE_PROJECT_NAME=udsm-headlines-seed004
	local rc=0
	# shellcheck disable=SC2086
	(
		cd "$dir"
		run seed004-http "$WORK/uds-migrate" bench http --compose compose.yaml --compose engine.yml --format json $BENCH_ARGS &&
			run seed004-http-keepalive "$WORK/uds-migrate" bench http --compose compose.yaml --compose engine.yml --keepalive 16 --format json $BENCH_ARGS
	) || rc=$?
	(cd "$dir" && compose_down compose.yaml)
	unset COMPOSE_PROJECT_NAME
	return "$rc"
}

for s in "${sections[@]}"; do
	log "section $s -> $OUT"
	"section_$s"
done
log "done: $OUT"
