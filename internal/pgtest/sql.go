package pgtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATE codes that mean "someone created it first", which Ensure* treat
// as success (pg_authid/pg_database unique violations come as 23505 when two
// sessions race past the existence check).
const (
	duplicateObject   = "42710"
	duplicateDatabase = "42P04"
	uniqueViolation   = "23505"
)

// Exec runs sql with args in database db as the superuser, over the socket.
func (s *Server) Exec(ctx context.Context, db, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, s.SocketDSN(s.SuperUser, db))
	if err != nil {
		return fmt.Errorf("pgtest: connecting to %q: %w", db, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return nil
}

// EnsureRole creates a login role with the given password, or resets the
// password of an existing one. The password is what TCP logins (and TCPDSN)
// need; socket logins are trusted and ignore it. An empty password creates
// the role without one, so it can log in over the socket only.
func (s *Server) EnsureRole(ctx context.Context, name, password string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	// format() quotes on the server side (%I identifier, %L literal), so
	// any name or password is safe.
	const q = `DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = current_setting('pgtest.role')) THEN
    EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', current_setting('pgtest.role'), nullif(current_setting('pgtest.password'), ''));
  ELSE
    EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', current_setting('pgtest.role'), nullif(current_setting('pgtest.password'), ''));
  END IF;
END $$`
	err := s.withSuper(ctx, func(conn *pgx.Conn) error {
		// DO blocks take no parameters; pass them through session settings.
		if _, err := conn.Exec(ctx, `SELECT set_config('pgtest.role', $1, false), set_config('pgtest.password', $2, false)`, name, password); err != nil {
			return err
		}
		_, err := conn.Exec(ctx, q)
		return err
	})
	if err != nil && !isSQLState(err, duplicateObject, uniqueViolation) {
		return fmt.Errorf("pgtest: ensuring role %q: %w", name, err)
	}
	s.passwords[name] = password
	return nil
}

// EnsureDatabase creates database name owned by owner unless it exists
// (an existing database keeps its owner). An empty owner means SuperUser.
// The owner role must exist (EnsureRole).
func (s *Server) EnsureDatabase(ctx context.Context, name, owner string) error {
	if owner == "" {
		owner = s.SuperUser
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.withSuper(ctx, func(conn *pgx.Conn) error {
		var exists bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil || exists {
			return err
		}
		// CREATE DATABASE cannot run in a DO block (it refuses transactions).
		_, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" OWNER "+pgx.Identifier{owner}.Sanitize())
		return err
	})
	if err != nil && !isSQLState(err, duplicateDatabase, uniqueViolation) {
		return fmt.Errorf("pgtest: ensuring database %q: %w", name, err)
	}
	return nil
}

func (s *Server) withSuper(ctx context.Context, f func(*pgx.Conn) error) error {
	conn, err := pgx.Connect(ctx, s.SocketDSN(s.SuperUser, "postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return f(conn)
}

func isSQLState(err error, codes ...string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	for _, c := range codes {
		if pgErr.Code == c {
			return true
		}
	}
	return false
}
