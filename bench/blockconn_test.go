//go:build unix

package bench

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// newPairConn is a blockingConn on one end of a socket pair, and the other
// end's descriptor.
func newPairConn(t *testing.T) (*blockingConn, int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[1]) })
	addr := &net.UnixAddr{Name: "pair", Net: "unix"}
	return &blockingConn{fd: fds[0], local: addr, remote: addr}, fds[1]
}

// pgconn's Close closes its net.Conn twice (once returned, once deferred)
// and its context watcher may set a deadline after that. Neither may touch
// the descriptor number once closed: the kernel hands it to the next file
// the process opens (a /proc file of the CPU watcher, another connection),
// and a CI run hung in a read whose answer that other user had taken.
func TestBlockingConnClosesOnce(t *testing.T) {
	c, _ := newPairConn(t)
	fd := c.fd
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// The next socket takes the freed number (the lowest free one).
	other, peer := newPairConn(t)
	if other.fd != fd {
		t.Skipf("the kernel gave descriptor %d, not the freed %d: nothing to check", other.fd, fd)
	}
	defer other.Close()
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("second Close: %v, want net.ErrClosed", err)
	}
	if err := c.SetDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Errorf("SetDeadline after Close: %v", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v, want net.ErrClosed", err)
	}
	// The socket that took the number still works both ways.
	if _, err := syscall.Write(peer, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if n, err := other.Read(buf); err != nil || string(buf[:n]) != "ping" {
		t.Errorf("the descriptor's new owner reads %q, %v; want \"ping\"", buf[:n], err)
	}
}

// Close during a blocked Read wakes it, and the descriptor is closed by
// the Read on its way out, not under it.
func TestBlockingConnCloseWakesRead(t *testing.T) {
	c, _ := newPairConn(t)
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Read still blocked 5 s after Close")
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if !closed {
		t.Error("the descriptor was not closed after the last Read returned")
	}
}
