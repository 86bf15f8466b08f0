package compose

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFileRefsNotRegular: files compose-go would read whole, named in every
// place a compose file names one, are refused at the name when they are a
// device, a named pipe or a directory; nothing is read from them.
func TestFileRefsNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "app.env")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	cases := []struct{ doc, pos, what string }{
		{"services:\n  app:\n    image: a\n    env_file: /dev/zero\n", "4:15", "env_file /dev/zero is a device"},
		{"services:\n  app:\n    image: a\n    env_file:\n      - path: app.env\n", "5:15", "env_file app.env is a named pipe"},
		{"services:\n  app:\n    image: a\n    env_file: [ok.env, app.env]\n", "4:24", "env_file app.env is a named pipe"},
		{"services:\n  app:\n    image: a\n    label_file: sub\n", "4:17", "label_file sub is a directory"},
		{"services:\n  app:\n    extends:\n      file: /dev/zero\n      service: b\n", "4:13", "extends.file /dev/zero is a device"},
		{"include:\n  - /dev/zero\nservices:\n  app:\n    image: a\n", "2:5", "include /dev/zero is a device"},
		{"include:\n  - path: [a.yml, app.env]\nservices:\n  app:\n    image: a\n", "2:19", "include app.env is a named pipe"},
		{"include:\n  - path: a.yml\n    env_file: app.env\nservices:\n  app:\n    image: a\n", "3:15", "the include's env_file app.env is a named pipe"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, "compose.yml")
		_, err := Load(context.Background(), []Input{{Path: p, Data: []byte(c.doc)}}, LoadOptions{})
		want := p + ":" + c.pos + ": " + c.what + ", not a regular file"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s...", c.doc, err, want)
		}
	}
}

// TestReadRegular: files reached through bind mounts and env files are read
// only when regular and at most MaxFileSize.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.conf")
	os.WriteFile(ok, []byte("x"), 0o644)
	big := filepath.Join(dir, "big.conf")
	f, _ := os.Create(big)
	f.Truncate(MaxFileSize + 1)
	f.Close()
	if b, err := ReadRegular(ok); err != nil || string(b) != "x" {
		t.Errorf("ok.conf: %q, %v", b, err)
	}
	for _, p := range []string{"/dev/zero", dir, big, filepath.Join(dir, "missing")} {
		if _, err := ReadRegular(p); err == nil {
			t.Errorf("%s: read", p)
		}
	}
}

// TestModelFileRefsChecked: whatever names an env_file or label_file (here
// the check before loading is skipped, as if a name escaped it), compose-go
// does not read it before resolveFileRefs has checked the path the model
// resolved.
func TestModelFileRefsChecked(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "p.fifo"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for key, want := range map[string]string{"env_file": "services.app.env_file: ", "label_file": "services.app.label_file: "} {
		doc := "services:\n  app:\n    image: a\n    " + key + ": p.fifo\n"
		done := make(chan error, 1)
		go func() {
			_, _, _, err := loadModel(context.Background(), []Input{{Path: filepath.Join(dir, "compose.yml"), Data: []byte(doc)}}, LoadOptions{})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want+filepath.Join(dir, "p.fifo")+" is a named pipe, not a regular file") {
				t.Errorf("%s: %v, want %s<path> is a named pipe...", key, err, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: compose-go is reading the pipe", key)
		}
	}
}
