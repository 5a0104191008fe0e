package dialect

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// blockConn is a net.Conn over a blocking socket whose reads and writes are
// raw system calls: the calling goroutine keeps its OS thread and its P
// while it waits for the server, the way a C client thread does, instead of
// parking in the netpoller and being woken through the scheduler (an
// epoll_wait, a futex wake and a thread switch per round trip).
//
// A blocked read returns every blockSlice (SO_RCVTIMEO), so the goroutine
// passes a safe point at least that often: a GC stop-the-world waits at
// most that long for it. Close shuts the socket down first, which wakes a
// read blocked in another goroutine; the descriptor is closed by the last
// user, so a concurrent read never sees a reused descriptor.
type blockConn struct {
	fd     int
	refs   atomic.Int32 // 1 for the open conn, +1 per read or write in progress
	closed atomic.Bool
	rdl    atomic.Int64 // read deadline, Unix ns; 0 none
	wdl    atomic.Int64 // write deadline, Unix ns; 0 none
	local  net.Addr
	remote net.Addr
}

// blockSlice bounds how long one raw read or write blocks (see blockConn).
const blockSlice = 2 * time.Millisecond

// dialBlocking is mysqlDial's choice on Linux.
var dialBlocking = dialBlockingSocket

// dialBlockingSocket dials like net.Dialer (TCP or a Unix socket, honouring
// ctx), then moves the connected socket to a blockConn: a duplicate
// descriptor in blocking mode, close-on-exec, with SO_RCVTIMEO and
// SO_SNDTIMEO of blockSlice; the netpoller's descriptor is closed. The
// connection holds one P of GOMAXPROCS until it is closed (procsAcquire).
// Errors are net.Dialer's, or the failing dup/setsockopt call's.
func dialBlockingSocket(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.New("dial: connection has no descriptor")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var opErr error
	if err := rc.Control(func(s uintptr) { fd, opErr = unix.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if opErr != nil {
		return nil, os.NewSyscallError("dup", opErr)
	}
	unix.CloseOnExec(fd)
	tv := unix.NsecToTimeval(blockSlice.Nanoseconds())
	for _, o := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if opErr == nil {
			opErr = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, o, &tv)
		}
	}
	if opErr == nil {
		opErr = unix.SetNonblock(fd, false)
	}
	if opErr != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setsockopt", opErr)
	}
	c := &blockConn{fd: fd, local: nc.LocalAddr(), remote: nc.RemoteAddr()}
	c.refs.Store(1)
	procsAcquire()
	return c, nil
}

func (c *blockConn) acquire() error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	c.refs.Add(1)
	if c.closed.Load() {
		c.release()
		return net.ErrClosed
	}
	return nil
}

func (c *blockConn) release() {
	if c.refs.Add(-1) == 0 {
		unix.Close(c.fd)
		procsRelease()
	}
}

// Read reads into b with one raw read(2), repeated only when the read timed
// out at blockSlice with nothing read (or was interrupted).
func (c *blockConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if err := c.acquire(); err != nil {
		return 0, c.opError("read", err)
	}
	defer c.release()
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch {
		case e == 0 && n == 0:
			return 0, errEOF(c)
		case e == 0:
			return int(n), nil
		case e == unix.EAGAIN || e == unix.EINTR:
			if err := c.wait(&c.rdl); err != nil {
				return 0, c.opError("read", err)
			}
		default:
			return 0, c.opError("read", e)
		}
	}
}

// Write writes all of b with raw write(2) calls.
func (c *blockConn) Write(b []byte) (int, error) {
	if err := c.acquire(); err != nil {
		return 0, c.opError("write", err)
	}
	defer c.release()
	done := 0
	for done < len(b) {
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(c.fd), uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done))
		switch {
		case e == 0:
			done += int(n)
		case e == unix.EAGAIN || e == unix.EINTR:
			if err := c.wait(&c.wdl); err != nil {
				return done, c.opError("write", err)
			}
		default:
			return done, c.opError("write", e)
		}
	}
	return done, nil
}

// wait decides whether a timed-out raw call goes on: not once the conn is
// closed or its deadline has passed. It is never inlined: its prologue is
// the loop's preemption point (the raw system call path has none), where a
// waiting stop-the-world or stack scan takes the goroutine.
//
//go:noinline
func (c *blockConn) wait(deadline *atomic.Int64) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	if d := deadline.Load(); d != 0 && time.Now().UnixNano() >= d {
		return os.ErrDeadlineExceeded
	}
	return nil
}

func errEOF(c *blockConn) error {
	if c.closed.Load() {
		return c.opError("read", net.ErrClosed)
	}
	return io.EOF
}

func (c *blockConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.remote.Network(), Source: c.local, Addr: c.remote, Err: err}
}

// Close shuts the socket down (waking a blocked read) and closes it once no
// read or write is using it.
func (c *blockConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	// Shutdown only wakes a blocked read or write; it fails (ENOTCONN)
	// once the peer has gone, which changes nothing: release closes the
	// socket.
	_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
	c.release()
	return nil
}

func (c *blockConn) LocalAddr() net.Addr  { return c.local }
func (c *blockConn) RemoteAddr() net.Addr { return c.remote }

func (c *blockConn) SetDeadline(t time.Time) error {
	return errors.Join(c.SetReadDeadline(t), c.SetWriteDeadline(t))
}

func (c *blockConn) SetReadDeadline(t time.Time) error {
	c.rdl.Store(unixNano(t))
	return nil
}

func (c *blockConn) SetWriteDeadline(t time.Time) error {
	c.wdl.Store(unixNano(t))
	return nil
}

func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}
