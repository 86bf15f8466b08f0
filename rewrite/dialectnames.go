package rewrite

import "github.com/uds-migrate/uds-migrate/dialect"

// Dialect names (package dialect), for the callers that still name them
// instead of asking the registry.
const (
	DialectCelery      = dialect.Celery
	DialectJDBC        = dialect.JDBC
	DialectURI         = dialect.URI
	DialectR2DBC       = dialect.R2DBC
	DialectDSN         = dialect.DSN
	DialectPDO         = dialect.PDO
	DialectNpgsql      = dialect.Npgsql
	DialectPGHOST      = dialect.PGHost
	DialectHostDir     = dialect.HostDir
	DialectHostDirPort = dialect.HostDirPort
)

// note is a finding-to-be of a rewrite (dialect.Note).
type note = dialect.Note

// Factory styles of --jdbc-factory (dialect.JDBCFactory*).
const (
	JDBCFactoryArg     = dialect.JDBCFactoryArg
	JDBCFactoryURI     = dialect.JDBCFactoryURI
	JDBCFactorySysprop = dialect.JDBCFactorySysprop
)
