package rewrite

import "github.com/uds-migrate/uds-migrate/dialect"

// note is a finding-to-be of a rewrite (dialect.Note).
type note = dialect.Note

// Factory styles of --jdbc-factory (dialect.JDBCFactory*).
const (
	JDBCFactoryArg     = dialect.JDBCFactoryArg
	JDBCFactoryURI     = dialect.JDBCFactoryURI
	JDBCFactorySysprop = dialect.JDBCFactorySysprop
)
