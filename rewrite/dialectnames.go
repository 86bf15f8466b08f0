package rewrite

import "github.com/uds-migrate/uds-migrate/dialect"

// Factory styles of --jdbc-factory (dialect.JDBCFactory*).
const (
	JDBCFactoryArg     = dialect.JDBCFactoryArg
	JDBCFactoryURI     = dialect.JDBCFactoryURI
	JDBCFactorySysprop = dialect.JDBCFactorySysprop
)
