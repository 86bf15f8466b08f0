package bench

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// Endpoints is one server reached both ways.
type Endpoints struct {
	TCP, Socket *pgx.ConnConfig
	// Target describes the server for reports.
	Target string
	// Close releases the target (stops an embedded server); never nil.
	Close func() error
}

// Endpoint renders a connection for reports: host, port, user and
// database, never the password. A socket shows its file path.
func Endpoint(cfg *pgx.ConnConfig) string {
	host := cfg.Host
	if strings.HasPrefix(host, "/") {
		host = strings.TrimSuffix(host, "/") + "/.s.PGSQL." + strconv.Itoa(int(cfg.Port))
		return fmt.Sprintf("%s user=%s dbname=%s", host, cfg.User, cfg.Database)
	}
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s", host, cfg.Port, cfg.User, cfg.Database)
}

// EmbeddedDatabase is the database the embedded target benchmarks in.
const EmbeddedDatabase = "uds_bench"

// StartEmbedded starts a throwaway PostgreSQL from the system binaries
// (internal/pgtest: TCP on 127.0.0.1 with a random password, a trusted
// socket in a 0700 temporary directory only this account and root reach) with a database for the bench. Close stops it and
// removes every file it wrote. The error says what to install when the
// binaries are missing.
func StartEmbedded(ctx context.Context) (*Endpoints, error) {
	if err := pgtest.Available(); err != nil {
		return nil, err
	}
	srv, err := pgtest.Start(ctx, pgtest.Options{
		// 128MB holds the 1,000,000-row table and its index, so lookup-large
		// measures round trips, not reads from the OS cache.
		Settings: map[string]string{"shared_buffers": "128MB"},
	})
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Endpoints, error) {
		srv.Stop()
		return nil, err
	}
	if err := srv.EnsureDatabase(ctx, EmbeddedDatabase, ""); err != nil {
		return fail(err)
	}
	tcp, err := pgx.ParseConfig(srv.TCPDSN(srv.SuperUser, EmbeddedDatabase))
	if err != nil {
		return fail(err)
	}
	sock, err := pgx.ParseConfig(srv.SocketDSN(srv.SuperUser, EmbeddedDatabase))
	if err != nil {
		return fail(err)
	}
	var version string
	if c, err := pgx.ConnectConfig(ctx, sock); err == nil {
		_ = c.QueryRow(ctx, "SHOW server_version").Scan(&version)
		c.Close(context.Background())
	}
	return &Endpoints{
		TCP:    tcp,
		Socket: sock,
		Target: strings.TrimSpace("embedded PostgreSQL " + version + " (throwaway, from " + srv.BinDir + ")"),
		Close:  srv.Stop,
	}, nil
}

// Existing reaches a running server over TCP with dsn (a libpq URI or
// keyword DSN; PG* variables fill the gaps, as in libpq) and over the
// socket in socketDir with the same port, user, password and database.
// Errors never contain the password.
func Existing(dsn, socketDir string) (*Endpoints, error) {
	if !strings.HasPrefix(socketDir, "/") {
		return nil, fmt.Errorf("--socket-dir %q: need an absolute directory (the one holding .s.PGSQL.<port>)", socketDir)
	}
	tcp, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("--tcp: %s", MaskDSN(err.Error()))
	}
	if strings.HasPrefix(tcp.Host, "/") {
		return nil, fmt.Errorf("--tcp %s: the host is a socket directory; give a TCP host", MaskDSN(dsn))
	}
	// One server, not a failover list: both transports must hit the same
	// one. The fallback to the same host and port stays: it is libpq's
	// sslmode=prefer (TLS first, then plain), pgx's default too, which
	// settleTLS resolves once before the runs.
	tcp.Fallbacks = slices.DeleteFunc(tcp.Fallbacks, func(f *pgconn.FallbackConfig) bool {
		return f.Host != tcp.Host || f.Port != tcp.Port
	})
	sock := tcp.Copy()
	sock.Host = socketDir
	sock.TLSConfig = nil // libpq and pgx never use TLS on a socket
	return &Endpoints{
		TCP:    tcp,
		Socket: sock,
		Target: "existing server " + MaskDSN(dsn),
		Close:  func() error { return nil },
	}, nil
}

// settleTLS makes sslmode=prefer's choice once, as libpq would on the
// first connection: when ep.TCP still holds a fallback (TLS, then plain),
// it connects, keeps TLS only if the server took it, and drops the
// fallback, so every run and every client (pgbench gets PGSSLMODE from
// TLSConfig) pays the same per query. Without it a server without SSL
// failed every run with "server refused TLS connection" (issue 16).
func settleTLS(ctx context.Context, ep *Endpoints) error {
	if len(ep.TCP.Fallbacks) == 0 {
		return nil
	}
	conn, err := pgx.ConnectConfig(ctx, ep.TCP)
	if err != nil {
		return fmt.Errorf("connecting over tcp: %w", err)
	}
	_, overTLS := conn.PgConn().Conn().(*tls.Conn)
	conn.Close(context.Background())
	cfg := ep.TCP.Copy()
	if !overTLS {
		cfg.TLSConfig = nil
	}
	cfg.Fallbacks = nil
	ep.TCP = cfg
	return nil
}

var (
	// password=... in keyword DSNs, quoted (libpq escapes \' and \\ inside)
	// or not; not after ? or &, where queryPasswordRE applies.
	kwPasswordRE = regexp.MustCompile(`(?i)(^|[^?&\w])(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]+)`)
	// scheme://user:password@ in URIs; the password runs to the last @
	// before the path so an unescaped @ inside it is masked too.
	uriPasswordRE = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^:/@?#\s]*:)([^\s?#]*)(@[^@/\s]*)`)
	// ?password=... or &password=... in URI queries.
	queryPasswordRE = regexp.MustCompile(`(?i)([?&]password=)([^&\s#]*)`)
)

// MaskDSN replaces every password in s — URI userinfo, a password= query
// parameter or keyword — with ****. s may be a DSN or any text holding
// DSNs, such as an error message.
func MaskDSN(s string) string {
	s = uriPasswordRE.ReplaceAllString(s, "${1}****${3}")
	s = queryPasswordRE.ReplaceAllString(s, "${1}****")
	return kwPasswordRE.ReplaceAllString(s, "${1}${2}****")
}

// Redact masks DSN passwords in s and also every literal occurrence of the
// given secrets (a password that reached s by another path), longest first.
func Redact(s string, secrets ...string) string {
	s = MaskDSN(s)
	for _, sec := range secrets {
		if len(sec) >= 3 { // shorter strings would mask ordinary text
			s = strings.ReplaceAll(s, sec, "****")
			s = strings.ReplaceAll(s, url.QueryEscape(sec), "****")
		}
	}
	return s
}
