package dialect

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// These tests run blockConn over real loopback and Unix sockets.

// dialPair returns a blocking client conn and the server side of it.
func dialPair(t *testing.T, network, addr string) (net.Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		s, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- s
	}()
	c, err := dialBlockingSocket(context.Background(), network, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c, s
}

// readOne runs c.Read in a goroutine and delivers its outcome.
func readOne(c net.Conn, buf []byte) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(buf)
		done <- err
	}()
	return done
}

// waitErr fails the test if nothing arrives on done in a minute: a hang, not
// a slow machine.
func waitErr(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
		return nil
	}
}

func TestBlockConnRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ network, addr string }{
		{"tcp", "127.0.0.1:0"},
		{"unix", filepath.Join(dir, "s.sock")},
	} {
		t.Run(tc.network, func(t *testing.T) {
			c, s := dialPair(t, tc.network, tc.addr)
			if _, ok := c.(*blockConn); !ok {
				t.Fatalf("dial gave %T, want *blockConn", c)
			}
			// 8 MiB in one Write is more than the socket buffers hold, so
			// the write blocks, times out at blockSlice and goes on.
			want := bytes.Repeat([]byte("vmbench!"), 1<<20)
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(io.LimitReader(s, int64(len(want))))
				got <- b
				if _, err := s.Write([]byte("ok")); err != nil {
					t.Errorf("server Write: %v", err)
				}
			}()
			if n, err := c.Write(want); err != nil || n != len(want) {
				t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(want))
			}
			if b := <-got; !bytes.Equal(b, want) {
				t.Fatalf("server read %d bytes, not the %d written", len(b), len(want))
			}
			reply := make([]byte, 2)
			if _, err := io.ReadFull(c, reply); err != nil || string(reply) != "ok" {
				t.Fatalf("ReadFull = %q, %v; want \"ok\"", reply, err)
			}
			s.Close()
			if _, err := c.Read(reply); err != io.EOF {
				t.Fatalf("Read after the peer closed = %v, want io.EOF", err)
			}
		})
	}
}

func TestBlockConnCloseWakesBlockedRead(t *testing.T) {
	c, _ := dialPair(t, "tcp", "127.0.0.1:0")
	done := readOne(c, make([]byte, 16))
	c.Close()
	if err := waitErr(t, done, "Read after Close"); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Read = %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close = %v, want net.ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close = %v, want nil", err)
	}
}

func TestBlockConnReadDeadline(t *testing.T) {
	c, _ := dialPair(t, "tcp", "127.0.0.1:0")
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	done := readOne(c, make([]byte, 16))
	err := waitErr(t, done, "Read past its deadline")
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read = %v, want a timeout wrapping os.ErrDeadlineExceeded", err)
	}
}

// A read blocked in the kernel holds its P; the garbage collector's
// stop-the-world must still finish while the read waits, because the read
// returns to Go every blockSlice. Without that, runtime.GC never returns
// and the world stays stopped: this test hangs until go test -timeout ends it.
func TestBlockConnBlockedReadDoesNotHoldGC(t *testing.T) {
	c, s := dialPair(t, "tcp", "127.0.0.1:0")
	buf := make([]byte, 16)
	done := readOne(c, buf)
	gc := make(chan error, 1)
	go func() { runtime.GC(); gc <- nil }()
	if err := waitErr(t, gc, "runtime.GC beside a blocked read"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("Read returned (%v) before the server wrote anything", err)
	default:
	}
	if _, err := s.Write([]byte("late")); err != nil {
		t.Fatalf("server Write: %v", err)
	}
	if err := waitErr(t, done, "Read after the server wrote"); err != nil || string(buf[:4]) != "late" {
		t.Fatalf("Read = %q, %v; want \"late\"", buf[:4], err)
	}
}

// Each open blocking conn adds a P, and closing the last one gives them
// back.
func TestBlockConnProcs(t *testing.T) {
	check := func(when string) {
		t.Helper()
		procs.mu.Lock()
		defer procs.mu.Unlock()
		if procs.open > 0 && runtime.GOMAXPROCS(0) < procs.base+procs.open {
			t.Errorf("%s: GOMAXPROCS %d < %d before + %d blocking conns", when, runtime.GOMAXPROCS(0), procs.base, procs.open)
		}
	}
	procs.mu.Lock()
	idle := procs.open == 0 // no other test's conn is open
	procs.mu.Unlock()
	before := runtime.GOMAXPROCS(0)
	conns := make([]net.Conn, 3)
	for i := range conns {
		conns[i], _ = dialPair(t, "tcp", "127.0.0.1:0")
		check("after a dial")
	}
	procs.mu.Lock()
	open := procs.open
	procs.mu.Unlock()
	for _, c := range conns {
		c.Close()
		check("after a close")
	}
	procs.mu.Lock()
	defer procs.mu.Unlock()
	if procs.open != open-len(conns) {
		t.Errorf("open blocking conns %d after closing %d of %d, want %d", procs.open, len(conns), open, open-len(conns))
	}
	if idle && procs.open == 0 && runtime.GOMAXPROCS(0) != before {
		t.Errorf("GOMAXPROCS %d after the last close, want %d restored", runtime.GOMAXPROCS(0), before)
	}
}

func TestMySQLDialIsBlockingUnlessNetpoll(t *testing.T) {
	if mysqlDial() == nil {
		t.Error("mysqlDial() = nil on Linux, want dialBlocking")
	}
	t.Setenv(NetpollEnv, "1")
	if mysqlDial() != nil {
		t.Errorf("mysqlDial() with %s=1 is not nil", NetpollEnv)
	}
}
