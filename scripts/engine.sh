#!/usr/bin/env bash
# A real Docker engine for the engine tests (e2e/docker):
#
#   bash scripts/engine.sh up       # install, compose plugin, start dockerd when none answers, build images
#   bash scripts/engine.sh images   # build the test images (cached); prints the cache tag
#   bash scripts/engine.sh down     # stop the dockerd that `up` started (nothing else)
#
# `up` as root on Debian installs docker.io and debootstrap when missing,
# builds docker compose v2 from the Go module proxy into
# ~/.docker/cli-plugins (cached in $CACHE/compose: skipped when the plugin
# answers with $COMPOSE_VERSION), and starts dockerd in the background when
# `docker info` fails, recording its pid in $STATE so `down` stops only that
# one. There is no registry: images are built from a Debian root file
# system (debootstrap, e2e/docker/images/packages) and tagged
# uds-migrate/<role>:<recipe hash>; they are rebuilt only when a file of the
# recipe changes, and older tags are removed.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${UDS_ENGINE_CACHE:-/var/cache/uds-migrate}
STATE=${UDS_ENGINE_STATE:-/run/uds-migrate-dockerd.pid}
COMPOSE_VERSION=v2.40.3
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
IMAGES=e2e/docker/images

log() { echo "engine.sh: $*" >&2; }

engine_answers() { timeout 10 docker info >/dev/null 2>&1; }

install_packages() {
	local missing=() p
	for p in docker.io debootstrap; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	((${#missing[@]})) || return 0
	if [[ $(id -u) -ne 0 ]]; then
		log "missing ${missing[*]}; as root: apt-get install -y ${missing[*]}"
		return 1
	fi
	log "installing ${missing[*]}"
	apt-get update -qq
	# Deny service starts during the install (the Docker convention): this
	# script starts dockerd itself and stops it again.
	local policy=/usr/sbin/policy-rc.d own_policy=0 rc=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
		own_policy=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || rc=$?
	((own_policy)) && rm -f "$policy"
	return "$rc"
}

# compose_plugin builds docker compose v2 (not a Debian package here; `go
# install pkg@version` refuses it for its go.mod's exclude directives) in a
# scratch module kept in $CACHE/compose so the Go build cache is reused.
compose_plugin() {
	local plugin=$HOME/.docker/cli-plugins/docker-compose
	if [[ -x $plugin ]] && [[ $("$plugin" version --short 2>/dev/null) == "${COMPOSE_VERSION#v}" ]]; then
		return 0
	fi
	log "building docker compose $COMPOSE_VERSION (a few minutes on 2 cores)"
	mkdir -p "$CACHE/compose" "$(dirname "$plugin")"
	(
		cd "$CACHE/compose"
		[[ -f go.mod ]] || go mod init uds-migrate.local/compose >/dev/null 2>&1
		go get "github.com/docker/compose/v2/cmd@$COMPOSE_VERSION" >/dev/null 2>&1
		go build -ldflags "-X github.com/docker/compose/v2/internal.Version=$COMPOSE_VERSION" \
			-o "$plugin" github.com/docker/compose/v2/cmd
	)
}

start_dockerd() {
	engine_answers && return 0
	if [[ $(id -u) -ne 0 ]]; then
		log "no Docker engine answers and not root: cannot start dockerd"
		return 1
	fi
	log "starting dockerd (log: $CACHE/dockerd.log)"
	mkdir -p "$CACHE"
	setsid dockerd >"$CACHE/dockerd.log" 2>&1 </dev/null &
	echo $! >"$STATE"
	local i
	for ((i = 0; i < 60; i++)); do
		engine_answers && return 0
		sleep 1
	done
	log "dockerd did not answer within 60 s; see $CACHE/dockerd.log"
	return 1
}

stop_dockerd() {
	[[ -f $STATE ]] || return 0
	local pid
	pid=$(cat "$STATE")
	rm -f "$STATE"
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
	log "stopping the dockerd this script started (pid $pid)"
	kill "$pid"
	local i
	for ((i = 0; i < 30; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 1
	done
	log "dockerd $pid still running after 30 s"
}

# recipe_hash covers every input of the images: the package list, the
# entrypoints and the probes' sources.
recipe_hash() {
	{
		cat "$IMAGES/packages"
		find "$IMAGES" e2e/docker/probe -type f | LC_ALL=C sort | xargs sha256sum
		sha256sum internal/probe/Probe.java go.sum
	} | sha256sum | cut -c1-12
}

# rootfs debootstraps the package list once per list (cache by its hash).
rootfs() {
	local pk h dir
	h=$(sha256sum "$IMAGES/packages" | cut -c1-12)
	dir=$CACHE/rootfs/$h
	if [[ ! -d $dir ]]; then
		pk=$(grep -v '^#' "$IMAGES/packages" | paste -sd, -)
		log "debootstrap bookworm ($pk) into $dir"
		rm -rf "$dir.tmp"
		mkdir -p "$CACHE/rootfs"
		debootstrap --variant=minbase --include="$pk" bookworm "$dir.tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
			{ log "debootstrap failed; see $CACHE/debootstrap.log"; return 1; }
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

# overlay puts the entrypoints and probes into the root file system and
# lays out the directories the images' owners depend on.
overlay() {
	local dir=$1 tmp
	tmp=$(mktemp -d)
	CGO_ENABLED=0 go build -trimpath -o "$tmp/udsprobe" ./e2e/docker/probe
	javac -d "$tmp" --release 17 -cp /usr/share/java/postgresql.jar internal/probe/Probe.java
	install -m 755 "$tmp/udsprobe" "$dir/usr/local/bin/udsprobe"
	install -d "$dir/opt/uds-probe"
	install -m 644 "$tmp"/Probe*.class "$dir/opt/uds-probe/"
	rm -rf "$tmp"
	install -m 755 "$IMAGES/postgres-entrypoint.sh" "$dir/usr/local/bin/docker-entrypoint.sh"
	install -m 755 "$IMAGES/bitnami-entrypoint.sh" "$dir/usr/local/bin/bitnami-entrypoint.sh"
	chroot "$dir" /bin/sh -ec '
		getent passwd 1001 >/dev/null || useradd -u 1001 -g 0 -M -d /bitnami -s /bin/sh bitnami
		# The official image: postgres-owned /var/run/postgresql, mode 3777
		# (a new named volume mounted there takes this owner and mode).
		install -d -o postgres -g postgres -m 3777 /var/run/postgresql
		install -d -o postgres -g postgres -m 1777 /var/lib/postgresql/data
		install -d -o 1001 -g 0 -m 775 /bitnami/postgresql
		rm -f /etc/nginx/sites-enabled/default
	'
}

# commit_role makes uds-migrate/ROLE:$TAG from the base image with CHANGES.
commit_role() {
	local role=$1 ctr c args=()
	shift
	for c in "$@"; do args+=(-c "$c"); done
	ctr=$(docker create "uds-migrate/base:$TAG" /bin/true)
	docker commit "${args[@]}" "$ctr" "uds-migrate/$role:$TAG" >/dev/null
	docker rm "$ctr" >/dev/null
}

has_role() { has_image "uds-migrate/$1:$TAG"; }

has_image() { docker image inspect "$1" >/dev/null 2>&1; }

images() {
	local tag dir
	tag=$(recipe_hash)
	if ! has_image "uds-migrate/base:$tag"; then
		dir=$(rootfs)
		overlay "$dir"
		log "importing uds-migrate/base:$tag"
		tar -C "$dir" -c . | docker import \
			-c 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
			-c 'ENV LANG=C.UTF-8' \
			-c "LABEL uds-migrate.recipe=$tag" - "uds-migrate/base:$tag" >/dev/null
	fi
	TAG=$tag
	# shellcheck source=../e2e/docker/images/roles.sh
	. "$IMAGES/roles.sh"
	make_roles
	# Images are kept only by their current cache tag.
	docker image ls --format '{{.Repository}}:{{.Tag}}' 'uds-migrate/*' | grep -v ":$tag\$" | xargs -r docker rmi >/dev/null 2>&1 || true
	echo "$tag"
}

case ${1:-} in
up)
	install_packages
	compose_plugin
	start_dockerd
	images >/dev/null
	;;
images) images ;;
down) stop_dockerd ;;
*)
	echo "usage: $0 up|images|down" >&2
	exit 2
	;;
esac
