# Sourced by scripts/engine.sh (part of the recipe hash): each test image is
# the base root file system with its own entrypoint. `has_role ROLE ||
# commit_role ROLE CHANGE...` commits uds-migrate/ROLE:<tag>; docker commit
# takes no STOPSIGNAL, so compose stops these with its timeout.
make_roles() {
	has_role postgres || commit_role postgres 'ENV PGDATA=/var/lib/postgresql/data' \
		'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
	has_role bitnami || commit_role bitnami 'USER 1001' \
		'ENTRYPOINT ["bitnami-entrypoint.sh"]' 'CMD ["postgres"]'
	has_role nginx || commit_role nginx 'ENTRYPOINT []' 'CMD ["nginx", "-g", "daemon off;"]'
	has_role client || commit_role client 'ENTRYPOINT ["udsprobe"]' 'CMD ["help"]'
}
