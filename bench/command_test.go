package bench

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// NextCommand binds exactly as Next does (SQL, values as text, literal),
// pass after pass, into the same reused buffers.
func TestNextCommandMatchesNext(t *testing.T) {
	text := "\\set id random(1, 1000)\n\\set n (:id - 2) * 3 % 7\nSELECT :id::int8, :n, ':id', '12:30', :missing\n  FROM t WHERE id = :id;\nSELECT 1;\n\\set late 5\nSELECT :late;\n"
	s, err := ParseScript("t.sql", text)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.NewRunner(nil, 7), s.NewRunner(nil, 7)
	var c Command
	for i := 0; i < 12; i++ {
		want, err := a.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.NextCommand(&c, true); err != nil {
			t.Fatal(err)
		}
		if c.SQL != want.SQL || string(c.Literal) != want.Literal || len(c.Params) != len(want.Args) {
			t.Fatalf("pass %d: got %q %q %q, want %q %q %v", i, c.SQL, c.Literal, c.Params, want.SQL, want.Literal, want.Args)
		}
		for k, arg := range want.Args {
			if string(c.Params[k]) != strconv.FormatInt(arg.(int64), 10) {
				t.Fatalf("pass %d: param %d is %q, want %v", i, k, c.Params[k], arg)
			}
		}
	}
}

// The first pass sends ":late" as text (not yet set); later passes bind
// it: the cached SQL follows the variables.
func TestNextCommandRebindsWhenAVariableAppears(t *testing.T) {
	s, err := ParseScript("l.sql", "SELECT :late;\n\\set late 5\n")
	if err != nil {
		t.Fatal(err)
	}
	r := s.NewRunner(nil, 1)
	var c Command
	if err := r.NextCommand(&c, false); err != nil || c.SQL != "SELECT :late" || len(c.Params) != 0 {
		t.Fatalf("first pass: %q %q %v", c.SQL, c.Params, err)
	}
	if err := r.NextCommand(&c, false); err != nil || c.SQL != "SELECT $1" || string(c.Params[0]) != "5" {
		t.Fatalf("second pass: %q %q %v", c.SQL, c.Params, err)
	}
}

// Binding a command allocates nothing once the buffers have grown.
func TestNextCommandDoesNotAllocate(t *testing.T) {
	w, err := LoadWorkload("lookup-small", 1000)
	if err != nil {
		t.Fatal(err)
	}
	r := w.Script.NewRunner(w.Defines, 1)
	var c Command
	for range 6 {
		r.NextCommand(&c, true)
	}
	if n := testing.AllocsPerRun(300, func() { r.NextCommand(&c, true) }); n != 0 {
		t.Errorf("%.1f allocations per command", n)
	}
}

// Cancelling the context stops a run blocked in a read at once: the
// blocking socket is shut down.
func TestPgxRunStopsOnCancel(t *testing.T) {
	_, ep := existing(t)
	s, err := ParseScript("sleep.sql", "SELECT pg_sleep(30);\n")
	if err != nil {
		t.Fatal(err)
	}
	c := &PgxClient{Configs: map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket}, Script: s, Conns: 1, Mode: Prepared}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err = c.Run(ctx, Socket, time.Minute)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 10*time.Second {
		t.Errorf("run ended after %v with %v, want context.Canceled at once", time.Since(start), err)
	}
}

// TestPgxLoopPassesThroughTheScheduler: the query loop yields about every
// yieldEvery, not per query and not never (see yieldEvery for why).
func TestPgxLoopPassesThroughTheScheduler(t *testing.T) {
	_, ep := existing(t)
	var yields atomic.Int64
	defer func(f func()) { yield = f }(yield)
	yield = func() { yields.Add(1) }
	c := &PgxClient{Configs: map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket}, Script: selectOne(t).Script, Conns: 1, Mode: Prepared}
	s, err := c.Run(context.Background(), Socket, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// Run's untimed first pass counts too: one more yield at most.
	most := int64(s.Elapsed/yieldEvery) + 2
	if n := yields.Load(); n < 2 || n > most {
		t.Errorf("%d yields in %v (%d queries), want 2..%d", n, s.Elapsed, s.Queries, most)
	}
}
