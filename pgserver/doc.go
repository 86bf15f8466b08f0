// Package pgserver is what uds-migrate knows about a PostgreSQL server
// container: whether a service runs the server (RunsServer) and which
// image family it is (FamilyOf: the catalogue's server entries, poolers
// told apart), the port and unix_socket_directories it uses, read as
// postgres reads them from its command line (CommandSettings), PGPORT, an
// image's own port variable or a mounted postgresql.conf (Settings), and
// whether its command turns sockets off (SocketsDisabled).
package pgserver
