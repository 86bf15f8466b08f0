#!/usr/bin/env bash
# Entrypoint of the Bitnami-like test image (tagged bitnami/postgresql:NN).
# Not a mirror of Bitnami's scripts: it keeps only the traits uds-migrate
# relies on (FACTS.md): the server runs as the non-root uid 1001, its data
# lives under /bitnami/postgresql/data, its socket is in /tmp, and it is
# configured by POSTGRESQL_USERNAME, POSTGRESQL_PASSWORD, POSTGRESQL_DATABASE
# and POSTGRESQL_PORT_NUMBER. pg_hba: local trust, host scram-sha-256.
set -euo pipefail

if [[ $# -gt 0 && $1 != postgres && ${1:0:1} != - ]]; then
	exec "$@"
fi
[[ ${1:-} == postgres ]] && shift

export PGDATA=/bitnami/postgresql/data
user=${POSTGRESQL_USERNAME:-postgres}
db=${POSTGRESQL_DATABASE:-$user}
port=${POSTGRESQL_PORT_NUMBER:-5432}

if [[ ! -s $PGDATA/PG_VERSION ]]; then
	mkdir -p "$PGDATA"
	chmod 700 "$PGDATA"
	initdb --username="$user" --pwfile=<(printf '%s\n' "${POSTGRESQL_PASSWORD:-}") --auth-local=trust --auth-host=scram-sha-256
	printf '\nhost all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
	pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=/tmp -p $port" -w start
	if [[ $db != postgres ]]; then
		psql -h /tmp -p "$port" -v ON_ERROR_STOP=1 --username "$user" --no-psqlrc --dbname postgres \
			--set db="$db" <<<'CREATE DATABASE :"db" ;'
	fi
	pg_ctl -D "$PGDATA" -m fast -w stop
fi

exec postgres -c listen_addresses='*' -c unix_socket_directories=/tmp -p "$port" "$@"
