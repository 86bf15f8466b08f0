// Package templates holds the text uds-migrate ships inside its binary
// (go:embed): the pgbench scripts and data set-up SQL of the bench
// workloads, the compose override that adds the bench sidecar, and the
// report layouts. It only stores and finds text; package bench gives it
// meaning.
package templates

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed pgbench/*.sql compose/*.tmpl report/*.tmpl
var files embed.FS

// FS returns the embedded tree: pgbench/NAME.sql, compose/NAME.tmpl,
// report/NAME.tmpl.
func FS() fs.FS { return files }

// PgbenchScript returns the pgbench script or SQL file pgbench/NAME.sql
// (e.g. "lookup-small", "setup-large"). The error lists the names that
// exist.
func PgbenchScript(name string) (string, error) {
	return read("pgbench", name, ".sql")
}

// Compose returns the compose template compose/NAME.tmpl.
func Compose(name string) (string, error) { return read("compose", name, ".tmpl") }

// Report returns the report layout report/NAME.tmpl (e.g. "text",
// "markdown").
func Report(name string) (string, error) { return read("report", name, ".tmpl") }

func read(dir, name, ext string) (string, error) {
	b, err := files.ReadFile(dir + "/" + name + ext)
	if err != nil {
		return "", fmt.Errorf("templates: no %s %q (have %s)", dir, name, strings.Join(Names(dir), ", "))
	}
	return string(b), nil
}

// Names lists the file names in dir without their extension, sorted.
func Names(dir string) []string {
	entries, _ := files.ReadDir(dir)
	var names []string
	for _, e := range entries {
		n := e.Name()
		names = append(names, n[:strings.LastIndexByte(n, '.')])
	}
	return names
}
