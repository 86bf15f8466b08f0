package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
	"time"
)

// EnvRequire names the environment variable that turns "PostgreSQL is not
// installed" from a skip into a failure. CI=true does the same, so that a CI
// machine missing the packages cannot pass by skipping every database test.
const EnvRequire = "PGTEST_REQUIRE"

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns the test binary's one shared server, starting it on first
// use (sync.Once). Tests share it, so each should create its own roles and
// databases (EnsureRole, EnsureDatabase) rather than assume a clean cluster.
//
// When Available() reports the binaries missing, Shared skips the test with
// that reason, or fails it when $PGTEST_REQUIRE or $CI is set. A start-up
// failure with the binaries present always fails the test.
//
// Pair it with Main in TestMain so the server is stopped after the tests and
// on SIGINT/SIGTERM; without Main the reaper still removes it when the test
// binary exits.
func Shared(tb testing.TB) *Server {
	tb.Helper()
	if err := Available(); err != nil {
		if Required() {
			tb.Fatalf("PostgreSQL required ($%s or $CI set) but unavailable: %v", EnvRequire, err)
		}
		tb.Skipf("skipping: %v", err)
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		shared.srv, shared.err = Start(ctx, Options{})
	})
	if shared.err != nil {
		tb.Fatalf("starting the shared PostgreSQL: %v", shared.err)
	}
	return shared.srv
}

// Required reports whether tests must fail rather than skip when a needed
// system tool is missing: $PGTEST_REQUIRE or $CI set to anything but ""/"0"/"false".
func Required() bool {
	for _, k := range []string{EnvRequire, "CI"} {
		switch os.Getenv(k) {
		case "", "0", "false":
		default:
			return true
		}
	}
	return false
}

// Main runs the tests and then stops every server this binary started
// (StopAll), turning a clean run into a failure if stopping fails. While the
// tests run, SIGINT and SIGTERM stop the servers and exit with status 1.
// Use it as:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
func Main(m *testing.M) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(os.Stderr, "pgtest: %v: stopping PostgreSQL servers\n", sig)
			if err := StopAll(); err != nil {
				fmt.Fprintln(os.Stderr, err)
			}
			os.Exit(1)
		case <-done:
		}
	}()

	code := m.Run()
	close(done)
	signal.Stop(sigs)
	if err := StopAll(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
