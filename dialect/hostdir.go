package dialect

import "net"

// hostDirDialect is an application's own host variable (DB_HOST,
// POSTGRES_HOST) that the image or application hands to a libpq-family
// driver (or PgBouncer) as host: the socket directory goes there, and its
// port variable stays. A source of knowledge selects it (the image
// catalogue, evidence in the project, --host-var), never the value.
var hostDirDialect = Dialect{
	Name:     HostDir,
	ToSocket: func(_, dir string, _ int) (string, []Note, error) { return dir, nil, nil },
}

// hostDirPortDialect is a host variable written host:port whose reader
// takes DIR:port the same way (Gitea's [database] HOST).
var hostDirPortDialect = Dialect{
	Name: HostDirPort,
	ToSocket: func(val, dir string, _ int) (string, []Note, error) {
		_, port, err := net.SplitHostPort(val)
		if err != nil {
			return "", nil, err
		}
		return dir + ":" + port, nil, nil
	},
}
