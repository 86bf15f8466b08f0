package rewrite

import (
	"regexp"
	"strings"
)

// imageFamily describes where a PostgreSQL image keeps its socket.
type imageFamily struct {
	Name      string
	SocketDir string
}

var (
	// The official image and images built FROM it keep the default
	// unix_socket_directories of Debian/Alpine builds; the entrypoint makes
	// the directory postgres-owned (docker-library/postgres).
	familyOfficial = imageFamily{"official", "/var/run/postgresql"}
	// Bitnami images run as uid 1001 and put the socket in /tmp (per the
	// bitnami/containers docs).
	familyBitnami = imageFamily{"bitnami", "/tmp"}
	// sclorg / Red Hat images (quay.io/sclorg/postgresql-15-c9s,
	// registry.redhat.io/rhel9/postgresql-15) run as uid 26 with the RHEL
	// default unix_socket_directories, /var/run/postgresql first.
	familySclorg = imageFamily{"sclorg", "/var/run/postgresql"}
)

// familyUnknown is the family of a --db service whose image the tool does
// not recognise (a pooler, a vendor's postgres build).
const familyUnknown = "--db"

var sclorgRE = regexp.MustCompile(`^postgresql-\d+(-c\d+s|-rhel\d+)?$`)

// poolerOf recognises connection poolers: clients that reach one talk to the
// pooler, not to PostgreSQL, so their values stay on TCP unless --db names
// the pooler.
func poolerOf(image string) bool {
	repo := repository(image)
	return strings.Contains(repo, "pgbouncer") || strings.Contains(repo, "pgcat") || strings.Contains(repo, "odyssey") || strings.Contains(repo, "pgpool")
}

// dockerfileFrom returns the image the last stage of a Dockerfile builds
// FROM, or "" (a build argument in the reference cannot be resolved here).
func dockerfileFrom(data []byte) string {
	from := ""
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && strings.EqualFold(f[0], "FROM") {
			ref := f[1]
			if strings.HasPrefix(ref, "--") && len(f) >= 3 {
				ref = f[2]
			}
			from = ref
		}
	}
	if strings.Contains(from, "$") {
		return ""
	}
	return from
}

// repository returns the repository path of an image reference, lower-cased,
// without registry host, tag or digest: "docker.io/library/postgres:16" →
// "library/postgres".
func repository(image string) string {
	ref := strings.ToLower(strings.TrimSpace(image))
	if i := strings.Index(ref, "@"); i >= 0 {
		ref = ref[:i]
	}
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	parts := strings.Split(ref, "/")
	// The first component is a registry host when it has a dot or a port,
	// or is localhost (distribution/reference rules).
	if len(parts) > 1 && (strings.ContainsAny(parts[0], ".:") || parts[0] == "localhost") {
		parts = parts[1:]
	}
	return strings.Join(parts, "/")
}

// officialRepos are the official image's repository paths: Docker Hub's
// library namespace ("postgres" is short for "library/postgres" there;
// mirror.gcr.io mirrors it under the same path) and ECR Public's copy of
// the Docker Official Images (public.ecr.aws/docker/library/postgres).
// Any other "<namespace>/postgres" (supabase/postgres, cimg/postgres, a
// company's own) is another image: its socket directory and pg_hba.conf
// are unknown, so its clients get UDS165 and --db/--socket-dir decide.
var officialRepos = map[string]bool{"postgres": true, "library/postgres": true, "docker/library/postgres": true}

// familyOf recognises PostgreSQL images by repository. ok is false for
// anything else (including poolers such as pgbouncer).
func familyOf(image string) (imageFamily, bool) {
	repo := repository(image)
	last := repo[strings.LastIndex(repo, "/")+1:]
	switch {
	// pgvector/pgvector is built FROM postgres:$PG_MAJOR (pgvector/pgvector
	// Dockerfile, commit 6e3101d).
	// ghcr.io/immich-app/postgres is built FROM pgvector/pgvector and its
	// entrypoint execs the official docker-entrypoint.sh
	// (immich-app/base-images postgres/Dockerfile, commit 1f6a591;
	// postgres/immich-docker-entrypoint.sh).
	// timescale/timescaledb-ha is not built FROM postgres, but its
	// docker-entrypoint.sh "started out as" the official one: initdb
	// without --auth-local (local trust), socket directory
	// /var/run/postgresql (timescale/timescaledb-docker-ha
	// docker-entrypoint.sh, commit 0581239).
	case officialRepos[repo] || repo == "postgis/postgis" || strings.HasPrefix(repo, "timescale/timescaledb") || repo == "pgvector/pgvector" || repo == "immich-app/postgres":
		return familyOfficial, true
	case strings.HasPrefix(repo, "bitnami/postgresql"):
		return familyBitnami, true
	case sclorgRE.MatchString(last):
		return familySclorg, true
	}
	return imageFamily{}, false
}
