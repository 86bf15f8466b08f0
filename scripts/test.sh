#!/usr/bin/env bash
# Runs the whole test suite: installs the system packages the tests drive
# (when root and something is missing), then gofmt, go vet and go test.
#
#   bash scripts/test.sh            # from anywhere in the repository
#
# Tests start their own throwaway PostgreSQL servers (internal/pgtest), so
# the Debian postgresql service is never started: package installation runs
# with service starts denied (policy-rc.d exit 101).
#
# Environment: CI=true (or PGTEST_REQUIRE=1) makes tests fail, instead of
# skip, when PostgreSQL or the JDBC probe is missing; CI=true also when no
# Docker engine answers (scripts/engine.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# What each package is for:
#   postgresql               initdb/postgres for internal/pgtest, psql (libpq) for internal/probe
#   libpostgresql-jdbc-java  pgjdbc (/usr/share/java/postgresql.jar)
#   libjunixsocket-java      junixsocket-common.jar (AFUNIXSocketFactory)
#   libjunixsocket-jni       junixsocket's native library (/usr/lib/<triplet>/jni/libjunixsocket-native-system.so)
#   default-jdk-headless     java, to run the JDBC probe as a single-file source program
#   nginx                    the nginx-in-front-of-an-app-server tests
#   python3-psycopg2 python3-psycopg python3-sqlalchemy python3-asyncpg python3-databases
#   python3-pydantic python3-django-environ python3-django php-cli php-pgsql ruby-pg
#   ruby-activerecord
#                            the readers of postgres:// URIs that e2e
#                            TestURIReaders connects with (consumer/readers.yaml;
#                            about 40 s to download and install here)
#   librust-url-dev          the Rust url crate (sources under /usr/share/cargo/registry)
#                            that e2e TestRustURLCrate builds offline with cargo
#   zsh fish                 the shells cmd/uds-migrate TestCompletionShells drives
#                            the completion scripts in (bash is there already)
packages=(postgresql libpostgresql-jdbc-java libjunixsocket-java libjunixsocket-jni default-jdk-headless nginx zsh fish librust-url-dev
	python3-psycopg2 python3-psycopg python3-sqlalchemy python3-asyncpg python3-databases python3-pydantic python3-django-environ python3-django php-cli php-pgsql ruby-pg ruby-activerecord)

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_missing() {
	local missing=() p
	for p in "${packages[@]}"; do
		installed "$p" || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	if [[ $(id -u) -ne 0 ]]; then
		echo "test.sh: missing Debian packages: ${missing[*]}" >&2
		echo "test.sh: as root: apt-get update && apt-get install -y ${missing[*]}" >&2
		echo "test.sh: continuing; tests that need them will skip" >&2
		return 0
	fi
	echo "test.sh: installing ${missing[*]}" >&2
	apt-get update -qq
	local unknown=()
	for p in "${missing[@]}"; do
		apt-cache show "$p" >/dev/null 2>&1 || unknown+=("$p")
	done
	if ((${#unknown[@]})); then
		echo "test.sh: no such package in the configured apt sources: ${unknown[*]}" >&2
		return 1
	fi
	# Deny service starts during the install (the Docker convention), so
	# neither the Debian postgresql cluster nor nginx starts on this machine.
	local policy=/usr/sbin/policy-rc.d own_policy=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		own_policy=1
	fi
	local rc=0
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
	((own_policy)) && rm -f "$policy"
	return "$rc"
}

install_missing

# == npm packages for e2e TestURIReaders ======================================
# The Node.js readers (pg, knex, postgres, sequelize, typeorm) and deepmerge
# (e2e TestUnleashDatabaseSSL rebuilds Unleash's options with it), pinned by
# e2e/testdata/readers/package-lock.json, installed with npm ci from the
# registry. npm's own cache (~/.npm) keeps the tarballs between runs
# (--prefer-offline: no revalidation); a stamp with the lock file's hash
# skips npm ci when node_modules already matches (measured here: 37 s
# with an empty cache, 11 s from the cache, 0 s with the stamp). Without
# npm the test skips its Node.js subtests, and fails under CI=true.
npm_readers() {
	local dir=e2e/testdata/readers stamp
	if ! command -v npm >/dev/null; then
		echo "test.sh: npm not found; e2e TestURIReaders' Node.js subtests will skip (and fail under CI=true)" >&2
		return 0
	fi
	stamp=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
	if [[ -f $dir/node_modules/.uds-stamp && $(cat "$dir/node_modules/.uds-stamp") == "$stamp" ]]; then
		return 0
	fi
	echo "test.sh: npm ci in $dir" >&2
	(cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error) || return 1
	echo "$stamp" >"$dir/node_modules/.uds-stamp"
}
npm_readers

# == Docker engine for the engine tests (e2e/docker) ==========================
# As root: install docker.io and debootstrap, build the compose v2 plugin and
# the test images (all cached), start dockerd when none answers; the dockerd
# started here is stopped on exit. Without an engine e2e/docker skips, except
# under CI=true, where it fails.
trap 'bash scripts/engine.sh down' EXIT
if [[ $(id -u) -eq 0 ]]; then
	bash scripts/engine.sh up || echo "test.sh: no Docker engine; e2e/docker will skip (and fail under CI=true)" >&2
fi
# =============================================================================

if ! command -v go >/dev/null; then
	echo "test.sh: go not on PATH (expected /usr/local/go/bin)" >&2
	exit 1
fi

echo "== go mod tidy -diff"
# go.mod must list direct requirements as direct (not // indirect) and
# nothing unused; -diff prints what tidy would change and exits 1.
if ! go mod tidy -diff; then
	echo "test.sh: go.mod/go.sum are not tidy: run go mod tidy and commit the result" >&2
	exit 1
fi

echo "== gofmt"
mapfile -t gofiles < <(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.git/*')
unformatted=""
if ((${#gofiles[@]})); then
	unformatted=$(gofmt -l "${gofiles[@]}")
fi
if [[ -n $unformatted ]]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi

echo "== go vet ./..."
go vet ./...

echo "== go test ./..."
# -count=1: always run, never report a cached result as this run's.
# -timeout: e2e/docker runs every scenario on the engine (minutes on 2 cores).
go test -count=1 -timeout 25m ./...

# == short fuzz runs ==========================================================
# Every fuzz target for 10 s (about 90 s in all, with the builds): enough to
# catch a regression near the seeds; the long runs are local (README,
# "Benchmarks"). -fuzz takes one target per run. A failure leaves the input
# in <package>/testdata/fuzz/<Target>/: commit it as a regression seed.
echo "== short fuzz runs"
fuzz_targets=(
	"./jdbc FuzzParse"
	"./jdbc FuzzToSocket"
	"./libpq FuzzParse"
	"./libpq FuzzToSocket"
	"./libpq FuzzParseDSN"
	"./libpq FuzzDSNToSocket"
	"./rewrite FuzzMigrate"
	"./cmd/uds-migrate FuzzNoPasswordLeak"
)
for t in "${fuzz_targets[@]}"; do
	read -r pkg target <<<"$t"
	go test -run='^$' -fuzz="^${target}\$" -fuzztime="${FUZZTIME:-10s}" "$pkg"
done
# =============================================================================

echo "test.sh: all tests passed"
