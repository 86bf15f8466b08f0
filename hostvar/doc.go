// Package hostvar decides whether a service's connection variable may take
// a socket, and in which form: a host variable (PGHOST, DB_HOST, a
// catalogued image's POSTGRES_HOST) a socket directory, a connection URI
// the socket form its reader accepts (Query.HostVar, Query.Reader). It
// asks the sources of knowledge in one order, the user's word
// (--host-var, --consumer), then evidence in the project's own code and
// manifests (packages evidence and consumer), then the image catalogue,
// and returns what the first that knows says as a value: a Verdict, or a
// Stay with the finding that keeps the value on TCP. It edits nothing and
// reports nothing; the analysis turns verdicts into edges and notes.
//
// It also holds the one reading of a variable's name (IsHostKey,
// IsAppHostKey, PortSibling, SetToDir) and the files that reach a
// service's container, which evidence is read from (Scopes).
package hostvar
