package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/uds-migrate/uds-migrate/templates"
)

// DefaultRows is the size of the lookup-large and heavy table.
const DefaultRows = 1_000_000

// Workload is a script plus the data it reads.
type Workload struct {
	// Name is a built-in name or the user's file name.
	Name   string
	Script *Script
	// Dataset names the set-up SQL (templates pgbench/setup-<Dataset>.sql);
	// empty for a user's script, which brings its own data.
	Dataset string
	// Defines are the pgbench -D variables the script and set-up see:
	// rows, the table size.
	Defines map[string]int64
}

// Workloads lists the built-in workload names with their data sets.
var Workloads = []struct{ Name, Dataset, About string }{
	{"lookup-small", "small", "primary-key lookups with changing ORDER BY on three 100-row tables"},
	{"lookup-large", "large", "primary-key lookups with changing sort on a --rows table (default 1,000,000)"},
	{"heavy", "large", "full sorts read at large OFFSETs, about a second per query on 1,000,000 rows"},
}

// LoadWorkload returns the built-in workload name, or, when name ends in
// ".sql", the pgbench script in that file (which must find its own data).
// rows sizes the large data set (≥ 100); every script sees it as :rows.
func LoadWorkload(name string, rows int64) (*Workload, error) {
	if rows < 100 {
		return nil, fmt.Errorf("--rows %d: need at least 100", rows)
	}
	w := &Workload{Name: name, Defines: map[string]int64{"rows": rows}}
	var text string
	if strings.HasSuffix(name, ".sql") {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		text = string(b)
		w.Name = filepath.Base(name)
	} else {
		for _, b := range Workloads {
			if b.Name == name {
				w.Dataset = b.Dataset
			}
		}
		if w.Dataset == "" {
			return nil, fmt.Errorf("unknown workload %q (lookup-small, lookup-large, heavy, or a FILE.sql pgbench script)", name)
		}
		var err error
		if text, err = templates.PgbenchScript(name); err != nil {
			return nil, err
		}
	}
	s, err := ParsePgbenchScript(w.Name, text, w.Defines)
	if err != nil {
		return nil, err
	}
	w.Script = s
	return w, nil
}

// SetupSQL returns the workload's data set-up SQL with :rows substituted,
// "" for a user's script.
func (w *Workload) SetupSQL() (string, error) {
	if w.Dataset == "" {
		return "", nil
	}
	text, err := templates.PgbenchScript("setup-" + w.Dataset)
	if err != nil {
		return "", err
	}
	return bindVars(text, w.Defines).Literal, nil
}

// SetupNote describes the set-up for reports.
func (w *Workload) SetupNote() string {
	switch w.Dataset {
	case "small":
		return "three 100-row tables"
	case "large":
		return fmt.Sprintf("one %d-row table", w.Defines["rows"])
	}
	return "none: the script brings its own data"
}

// Setup creates the workload's tables through cfg (any transport) and
// returns how long it took; set-up time is reported, never counted.
func (w *Workload) Setup(ctx context.Context, cfg *pgx.ConnConfig) (time.Duration, error) {
	sql, err := w.SetupSQL()
	if err != nil || sql == "" {
		return 0, err
	}
	start := time.Now()
	if err := execScript(ctx, cfg, sql); err != nil {
		return 0, fmt.Errorf("data set-up for %s: %w", w.Name, err)
	}
	return time.Since(start), nil
}

// Teardown drops every table the bench creates (--keep-data skips it).
func Teardown(ctx context.Context, cfg *pgx.ConnConfig) error {
	sql, err := templates.PgbenchScript("teardown")
	if err != nil {
		return err
	}
	return execScript(ctx, cfg, sql)
}

// execScript runs several statements in one simple-protocol message, as
// psql -f would run them one by one.
func execScript(ctx context.Context, cfg *pgx.ConnConfig, sql string) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.PgConn().Exec(ctx, sql).ReadAll()
	return err
}
