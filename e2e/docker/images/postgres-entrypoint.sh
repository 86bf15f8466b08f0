#!/usr/bin/env bash
# Entrypoint of the test image tagged as the official postgres image
# (postgres:16, postgres:13.15, ...). It mirrors, from docker-library/postgres
# 16/bookworm/docker-entrypoint.sh (commit 6edb0a8c, 2026-02-26):
#   - docker_create_db_directories: as root, mkdir -p PGDATA (chmod 700) and
#     /var/run/postgresql (chmod 03775), chown both to postgres, then
#     re-exec itself through `gosu postgres`;
#   - docker_setup_env: POSTGRES_USER (default postgres), POSTGRES_DB
#     (default POSTGRES_USER), POSTGRES_PASSWORD, POSTGRES_INITDB_ARGS,
#     POSTGRES_HOST_AUTH_METHOD; initialisation only when PGDATA has no
#     PG_VERSION;
#   - docker_init_database_dir: initdb --username=POSTGRES_USER
#     --pwfile=<password> POSTGRES_INITDB_ARGS (initdb's default `local`
#     and 127.0.0.1 lines are trust, so the socket trusts everyone unless
#     --auth-local says otherwise);
#   - pg_setup_hba_conf: appends `host all all all <password_encryption>`
#     (scram-sha-256 on 14+);
#   - docker_temp_server_start/docker_setup_db: a socket-only temporary
#     server (listen_addresses='', -p PGPORT) and CREATE DATABASE through
#     psql over the socket, PGPASSWORD set for --auth-local;
#   - docker_process_init_files: /docker-entrypoint-initdb.d/*.sql run by
#     psql over the socket as POSTGRES_USER in POSTGRES_DB (*.sh and *.gz
#     are left out);
#   - a first argument starting with '-' means `postgres "$@"`; other
#     commands run as they are (exec "$@"), so `-c` options of a compose
#     `command:` reach the server.
# And from 16/bookworm/Dockerfile: listen_addresses='*' in the sample
# configuration (here: appended to postgresql.conf after initdb).
# Left out: *_FILE secrets, nss_wrapper,
# POSTGRES_INITDB_WALDIR, the old-database checks. The server binaries are
# Debian bookworm's PostgreSQL 15 whatever the tag says.
set -euo pipefail

if [[ ${1:0:1} == - ]]; then
	set -- postgres "$@"
fi

if [[ $1 != postgres ]]; then
	exec "$@"
fi

: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA
POSTGRES_USER=${POSTGRES_USER:-postgres}
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
POSTGRES_PASSWORD=${POSTGRES_PASSWORD:-}
POSTGRES_INITDB_ARGS=${POSTGRES_INITDB_ARGS:-}

if [[ $(id -u) == 0 ]]; then
	mkdir -p "$PGDATA"
	chmod 00700 "$PGDATA" || :
	mkdir -p /var/run/postgresql || :
	chmod 03775 /var/run/postgresql || :
	find "$PGDATA" \! -user postgres -exec chown postgres '{}' +
	find /var/run/postgresql \! -user postgres -exec chown postgres '{}' +
	exec gosu postgres "$BASH_SOURCE" "$@"
fi

if [[ ! -s $PGDATA/PG_VERSION ]]; then
	if [[ -z $POSTGRES_PASSWORD && ${POSTGRES_HOST_AUTH_METHOD:-} != trust ]]; then
		echo "Error: Database is uninitialized and superuser password is not specified." >&2
		exit 1
	fi
	eval 'initdb --username="$POSTGRES_USER" --pwfile=<(printf "%s\n" "$POSTGRES_PASSWORD") '"$POSTGRES_INITDB_ARGS"
	echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
	shift
	auth=$(postgres -C password_encryption "$@")
	printf '\nhost all all all %s\n' "${POSTGRES_HOST_AUTH_METHOD:-$auth}" >>"$PGDATA/pg_hba.conf"
	export PGPASSWORD=$POSTGRES_PASSWORD
	pg_ctl -D "$PGDATA" -o "$(printf '%q ' "$@" -c listen_addresses='' -p "${PGPORT:-5432}")" -w start
	if [[ $POSTGRES_DB != postgres ]]; then
		PGHOST= psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc --dbname postgres \
			--set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db" ;'
	fi
	for f in /docker-entrypoint-initdb.d/*.sql; do
		[[ -e $f ]] || continue
		echo "$0: running $f"
		PGHOST= psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc --dbname "$POSTGRES_DB" -f "$f"
	done
	pg_ctl -D "$PGDATA" -m fast -w stop
	unset PGPASSWORD
	set -- postgres "$@"
	echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
