package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// reaperScript waits for end-of-file on its stdin, which happens when Stop
// releases it or when this process dies by any means (the kernel closes our
// end of the pipe even on SIGKILL). It then stops a postmaster still named in
// the data directory's postmaster.pid (immediate shutdown, then SIGKILL) and
// removes the server's directory. $1 is Server.Dir.
const reaperScript = `read -r _ || :
pidfile="$1/data/postmaster.pid"
if [ -f "$pidfile" ]; then
	pid=$(head -n 1 "$pidfile")
	case "$pid" in
	''|*[!0-9]*) ;;
	*)
		kill -QUIT "$pid" 2>/dev/null
		i=0
		while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i+1)); done
		kill -KILL "$pid" 2>/dev/null
		;;
	esac
fi
rm -rf "$1"
`

type reaper struct {
	cmd  *exec.Cmd
	w    *os.File // our end of the pipe: closing it wakes the script
	once sync.Once
}

// startReaper starts the watchdog for dir. It runs in its own session so that
// a terminal's SIGINT to our process group does not kill it before it cleans.
func startReaper(dir string) (*reaper, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("pgtest: reaper pipe: %w", err)
	}
	cmd := exec.Command("/bin/sh", "-c", reaperScript, "pgtest-reaper", dir)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("pgtest: starting reaper: %w", err)
	}
	r.Close() // the child holds the read end now
	return &reaper{cmd: cmd, w: w}, nil
}

// release wakes the reaper (which then finds nothing left to clean) and
// waits up to 10 s for it to exit.
func (r *reaper) release() {
	r.once.Do(func() {
		r.w.Close()
		done := make(chan error, 1)
		go func() { done <- r.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = r.cmd.Process.Kill()
		}
	})
}

// live holds the servers started and not yet stopped, so that StopAll (and
// Main's signal handler) can reach servers a test started on its own.
var live struct {
	sync.Mutex
	servers map[*Server]struct{}
}

func register(s *Server) {
	live.Lock()
	defer live.Unlock()
	if live.servers == nil {
		live.servers = map[*Server]struct{}{}
	}
	live.servers[s] = struct{}{}
}

func unregister(s *Server) {
	live.Lock()
	defer live.Unlock()
	delete(live.servers, s)
}

// StopAll stops every server this process started and has not stopped yet,
// and returns their errors joined. A program embedding pgtest (the bench
// command) calls it from its own signal handler; tests get it through Main.
func StopAll() error {
	live.Lock()
	servers := make([]*Server, 0, len(live.servers))
	for s := range live.servers {
		servers = append(servers, s)
	}
	live.Unlock()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Stop())
	}
	return errors.Join(errs...)
}
