package bench

import "github.com/compose-spec/compose-go/v2/types"

// credentials sets User, Database and Password from the database service's
// environment (interpolated): the official image's POSTGRES_USER,
// POSTGRES_DB and POSTGRES_PASSWORD (defaults postgres, the user, none),
// else Bitnami's POSTGRESQL_USERNAME (POSTGRESQL_USER, POSTGRES_USERNAME),
// POSTGRESQL_DATABASE (POSTGRES_DATABASE) and POSTGRESQL_PASSWORD, whose
// default database is postgres (bitnami/containers
// bitnami/postgresql/17/debian-12/rootfs/opt/bitnami/scripts/postgresql-env.sh).
func (ct *ComposeTarget) credentials(svc types.ServiceConfig) {
	env := func(keys ...string) string {
		for _, k := range keys {
			if v := svc.Environment[k]; v != nil && *v != "" {
				return *v
			}
		}
		return ""
	}
	ct.User = env("POSTGRES_USER", "POSTGRESQL_USERNAME", "POSTGRESQL_USER", "POSTGRES_USERNAME")
	if ct.User == "" {
		ct.User = "postgres"
	}
	ct.Database = env("POSTGRES_DB", "POSTGRESQL_DATABASE", "POSTGRES_DATABASE")
	if ct.Database == "" {
		ct.Database = ct.User
		if env("POSTGRESQL_USERNAME", "POSTGRESQL_USER", "POSTGRES_USERNAME", "POSTGRESQL_PASSWORD") != "" {
			ct.Database = "postgres"
		}
	}
	ct.Password = env("POSTGRES_PASSWORD", "POSTGRESQL_PASSWORD")
}
