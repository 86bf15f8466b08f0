package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFilesBehindIndirections (issue 25, Medium 4): a named pipe,
// /dev/zero or a file over the size limit, reached through every way a
// compose project names a file that compose-go reads whole (an
// interpolated env_file or label_file, include:, an include's env_file,
// the included project's .env, extends.file, a file an included or
// extended file names, the project's .env), makes every command exit 2
// with the name and what it is, having read nothing: a pipe with no
// writer would block the read forever, /dev/zero fills memory. The
// commands run in a goroutine; 20 s without an answer fails as a hang.
func TestSpecialFilesBehindIndirections(t *testing.T) {
	const head = "services:\n  db:\n    image: postgres:16\n"
	cases := []struct {
		name  string
		files map[string]string // compose.yml and the rest; "FIFO" makes a named pipe, "ZERO" a link to /dev/zero, "BIG" a file over 10 MiB
		want  string            // in stderr
	}{
		{"env_file interpolated", map[string]string{"compose.yml": head + "  app:\n    image: x\n    env_file: ${EF:-p.fifo}\n", "p.fifo": "FIFO"},
			"compose.yml:6:15: env_file ${EF:-p.fifo} (p.fifo) is a named pipe, not a regular file"},
		{"env_file list interpolated", map[string]string{"compose.yml": head + "  app:\n    image: x\n    env_file:\n      - path: ${EF:-/dev/zero}\n        required: false\n"},
			"compose.yml:7:15: env_file ${EF:-/dev/zero} (/dev/zero) is a device"},
		{"env_file from the shell", map[string]string{"compose.yml": head + "  app:\n    image: x\n    env_file: ${SHELL_EF}\n", "e.fifo": "FIFO"},
			"compose.yml:6:15: env_file ${SHELL_EF} (e.fifo) is a named pipe"},
		{"env_file too big", map[string]string{"compose.yml": head + "  app:\n    image: x\n    env_file: ${EF:-big.env}\n", "big.env": "BIG"},
			"compose.yml:6:15: env_file ${EF:-big.env} (big.env) is larger than 10 MiB"},
		{"label_file interpolated", map[string]string{"compose.yml": head + "  app:\n    image: x\n    label_file: ${LF:-p.fifo}\n", "p.fifo": "FIFO"},
			"compose.yml:6:17: label_file ${LF:-p.fifo} (p.fifo) is a named pipe"},
		{"include interpolated", map[string]string{"compose.yml": "include:\n  - ${INC:-p.fifo}\n" + head, "p.fifo": "FIFO"},
			"compose.yml:2:5: include ${INC:-p.fifo} (p.fifo) is a named pipe"},
		{"include too big", map[string]string{"compose.yml": "include:\n  - big.yml\n" + head, "big.yml": "BIG"},
			"compose.yml:2:5: include big.yml is larger than 10 MiB"},
		{"include's env_file", map[string]string{"compose.yml": "include:\n  - path: sub/inc.yml\n    env_file: ${IE:-z.env}\n" + head, "sub/inc.yml": "services:\n  app:\n    image: x\n", "z.env": "ZERO"},
			"compose.yml:3:15: the include's env_file ${IE:-z.env} (z.env) is a device"},
		{"included project's .env", map[string]string{"compose.yml": "include:\n  - sub/inc.yml\n" + head, "sub/inc.yml": "services:\n  app:\n    image: x\n", "sub/.env": "FIFO"},
			"compose.yml:2:5: sub/.env, the included project's .env, is a named pipe"},
		{"included file's env_file", map[string]string{"compose.yml": "include:\n  - sub/inc.yml\n" + head, "sub/inc.yml": "services:\n  app:\n    image: x\n    env_file: p.fifo\n", "sub/p.fifo": "FIFO"},
			"sub/inc.yml:4:15: env_file p.fifo is a named pipe"},
		{"included file's include", map[string]string{"compose.yml": "include:\n  - sub/inc.yml\n" + head, "sub/inc.yml": "include:\n  - p.fifo\nservices:\n  app:\n    image: x\n", "sub/p.fifo": "FIFO"},
			"sub/inc.yml:2:5: include p.fifo is a named pipe"},
		{"extends.file interpolated", map[string]string{"compose.yml": head + "  app:\n    extends:\n      file: ${XF:-p.fifo}\n      service: a\n", "p.fifo": "FIFO"},
			"compose.yml:6:13: extends.file ${XF:-p.fifo} (p.fifo) is a named pipe"},
		{"extended file's env_file", map[string]string{"compose.yml": head + "  app:\n    extends:\n      file: sub/ext.yml\n      service: a\n", "sub/ext.yml": "services:\n  a:\n    image: x\n    env_file: ${EF:-p.fifo}\n", "sub/p.fifo": "FIFO"},
			"sub/ext.yml:4:15: env_file ${EF:-p.fifo} (p.fifo) is a named pipe"},
		{"extended file's extends", map[string]string{"compose.yml": head + "  app:\n    extends:\n      file: sub/ext.yml\n      service: a\n", "sub/ext.yml": "services:\n  a:\n    extends:\n      file: z.yml\n      service: b\n", "sub/z.yml": "ZERO"},
			"sub/ext.yml:4:13: extends.file z.yml is a device"},
		{".env", map[string]string{"compose.yml": head + "  app:\n    image: x\n", ".env": "FIFO"},
			".env is a named pipe"},
		{".env to /dev/zero", map[string]string{"compose.yml": head + "  app:\n    image: x\n", ".env": "ZERO"},
			".env is a device"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			t.Setenv("SHELL_EF", "e.fifo")
			for name, data := range c.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				switch data {
				case "FIFO":
					err = syscall.Mkfifo(p, 0o644)
				case "ZERO":
					err = os.Symlink("/dev/zero", p)
				case "BIG":
					err = os.WriteFile(p, bytes.Repeat([]byte("A=b\n"), 3<<20), 0o644)
				default:
					err = os.WriteFile(p, []byte(data), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			// No file argument: discovery reads .env too.
			for _, args := range [][]string{{"compose.yml"}, {"-w", "compose.yml"}, {"plan", "compose.yml"}, {"validate", "compose.yml"}, {"revert", "compose.yml"}, {}} {
				type result struct {
					code   int
					stderr string
				}
				done := make(chan result, 1)
				start := time.Now()
				go func() {
					var out, errb bytes.Buffer
					code := run(append([]string{"uds-migrate"}, args...), &out, &errb)
					done <- result{code, errb.String()}
				}()
				select {
				case r := <-done:
					if r.code != 2 || !strings.Contains(r.stderr, c.want) {
						t.Errorf("uds-migrate %s: exit %d, stderr:\n%s\nwant exit 2 and %q", strings.Join(args, " "), r.code, r.stderr, c.want)
					}
					t.Logf("uds-migrate %s: exit %d in %v", strings.Join(args, " "), r.code, time.Since(start).Round(time.Millisecond))
				case <-time.After(20 * time.Second):
					t.Fatalf("uds-migrate %s: no answer after 20 s (reading the file?)", strings.Join(args, " "))
				}
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "compose.yml")); string(b) != c.files["compose.yml"] {
				t.Errorf("compose.yml was written:\n%s", b)
			}
		})
	}
}
