//go:build unix

package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// blockingDial dials like net.Dialer (honouring ctx), then hands the
// socket over to a blockingConn: the in-process client then waits for the
// server's answer in the read system call, as libpq (pgbench) does, and
// not through Go's netpoller, whose park/wake-up per round trip costs
// about half of the client's CPU time per query on one connection
// (docs/benchmarks.md, "The in-process client's overhead").
func blockingDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("blocking dial: not a socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(s uintptr) { fd, dupErr = syscall.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	syscall.CloseOnExec(fd)
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &blockingConn{fd: fd, local: nc.LocalAddr(), remote: nc.RemoteAddr()}, nil
}

// blockingConn is a net.Conn on a socket in blocking mode. Deadlines are
// not timers: a deadline at or before now shuts the socket down, which
// wakes a blocked read or write (how pgconn interrupts an operation when
// its context ends); any other deadline is ignored.
//
// The descriptor is closed exactly once, and only when no Read or Write is
// using it: pgconn may call Close twice and may set a deadline after Close
// (its context watcher), and a second close(2) or a shutdown(2) on a number
// the kernel has since handed to another connection hits that connection.
// Before this guard, 4 goroutines connecting 1,500 times each saw "bad
// file descriptor" within seconds, and a CI run hung 18 minutes in a read
// on a descriptor that belonged to something else.
type blockingConn struct {
	local, remote net.Addr
	// pfd is Read's poll set, kept here so that a query allocates nothing.
	pfd [1]unix.PollFd

	mu      sync.Mutex
	fd      int
	users   int  // Reads and Writes using fd now
	closing bool // Close was called: no new user
	closed  bool // fd was closed
}

// acquire returns the descriptor for one Read or Write, or net.ErrClosed.
func (c *blockingConn) acquire() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return -1, net.ErrClosed
	}
	c.users++
	return c.fd, nil
}

// release ends one use; the last user after Close closes the descriptor.
func (c *blockingConn) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.users--
	if c.closing && c.users == 0 && !c.closed {
		c.closed = true
		syscall.Close(c.fd)
	}
}

// Read waits in poll(2) until the socket is readable, then reads. Waiting
// in read(2) itself would cost a Unix socket one more sleep and wake-up
// per round trip than TCP: when the server takes in the request, the
// kernel frees the request's buffer and tells every waiter on the
// client's socket that it is writable again (sock_wfree calls
// unix_write_space, net/unix/af_unix.c), which wakes a reader asleep in
// unix_stream_data_wait; it finds no answer yet and sleeps again. poll
// wakes only for the events it asked for (pollwake, fs/select.c), and
// TCP signals free space only after its send buffer was full. libpq, so
// pgbench, waits in poll too. Measured (docs/runs/client-syscalls/): 1.41
// to 1.47 voluntary context switches per query over the socket when
// waiting in read, 0.99 with poll; TCP 0.96 to 0.99 either way.
func (c *blockingConn) Read(p []byte) (int, error) {
	fd, err := c.acquire()
	if err != nil {
		return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: err}
	}
	defer c.release()
	if len(p) > 0 {
		if err := c.waitReadable(fd); err != nil {
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: err}
		}
	}
	for {
		n, err := syscall.Read(fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// waitReadable blocks until the socket has data, an error or a hang-up
// (a shutdown by SetDeadline included): the read that follows then
// returns at once.
func (c *blockingConn) waitReadable(fd int) error {
	c.pfd[0] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	for {
		_, err := unix.Poll(c.pfd[:], -1)
		if err != unix.EINTR {
			return err
		}
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	fd, err := c.acquire()
	if err != nil {
		return 0, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: err}
	}
	defer c.release()
	done := 0
	for done < len(p) {
		n, err := syscall.Write(fd, p[done:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: err}
		}
		done += n
	}
	return done, nil
}

// Close closes the descriptor now, or, while a Read or Write uses it,
// shuts the socket down (which wakes them) and leaves the close to the
// last of them. A second Close returns net.ErrClosed.
func (c *blockingConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return net.ErrClosed
	}
	c.closing = true
	if c.users > 0 {
		return syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
	c.closed = true
	return syscall.Close(c.fd)
}

func (c *blockingConn) LocalAddr() net.Addr  { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr { return c.remote }

func (c *blockingConn) SetDeadline(t time.Time) error {
	if t.IsZero() || t.After(time.Now()) {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	return syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
}
func (c *blockingConn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *blockingConn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }
