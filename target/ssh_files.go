package target

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"vmbench/internal/boundedread"
)

// exitNotExist is the status the ReadFile script exits with when the file
// does not exist (cat's own failures exit 1); exitNotRegular the status
// the ReadFileMax script exits with when it is not a regular file.
const (
	exitNotExist   = 44
	exitNotRegular = 45
)

// Upload streams the local file to a temporary file beside remote (cat),
// applies mode, has the host hash it (sha256sum, else shasum -a 256), and
// renames it into place only when the hash is the one sent; otherwise the
// temporary file is removed and the error wraps ErrChecksum.
func (s *SSH) Upload(ctx context.Context, local, remote string, mode uint32) error {
	f, err := os.Open(local)
	if err != nil {
		return fmt.Errorf("target %s: upload: %w", s.name, err)
	}
	defer f.Close()
	return s.write(ctx, f, remote, mode)
}

// WriteFile writes data to remote like Upload.
func (s *SSH) WriteFile(ctx context.Context, remote string, data []byte, mode uint32) error {
	return s.write(ctx, bytes.NewReader(data), remote, mode)
}

// hashScript prints the SHA-256 of standard input, hex first.
const hashScript = `if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi`

func (s *SSH) write(ctx context.Context, r io.Reader, remote string, mode uint32) error {
	dst, err := s.remote(remote)
	if err != nil {
		return err
	}
	if remote == "." {
		return fmt.Errorf("target %s: write: %w: \".\" is the working directory, not a file", s.name, ErrBadPath)
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	dir := path.Dir(dst)
	tmp := dir + "/." + path.Base(dst) + ".tmp-" + hex.EncodeToString(rnd[:])
	h := sha256.New()
	in := io.TeeReader(r, h)
	if s.corrupt != nil {
		in = s.corrupt(in)
	}
	qt := shQuote(tmp)
	script := fmt.Sprintf("mkdir -p -- %s && cat > %s && chmod %o %s && %s < %s || { c=$?; rm -f -- %s; exit $c; }",
		shQuote(dir), qt, fs.FileMode(mode).Perm(), qt, hashScript, qt, qt)
	out, err := s.run(ctx, script, in)
	if err != nil {
		return fmt.Errorf("target %s: write %s: %w", s.name, remote, err)
	}
	want := hex.EncodeToString(h.Sum(nil))
	got, _, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if got != want {
		_, _ = s.run(context.WithoutCancel(ctx), "rm -f -- "+qt, nil)
		return fmt.Errorf("target %s: %s: %w: sent sha256 %s, host has %q (file removed)", s.name, remote, ErrChecksum, want, got)
	}
	if _, err := s.run(ctx, "mv -f -- "+qt+" "+shQuote(dst), nil); err != nil {
		_, _ = s.run(context.WithoutCancel(ctx), "rm -f -- "+qt, nil)
		return fmt.Errorf("target %s: write %s: rename: %w", s.name, remote, err)
	}
	return nil
}

// ReadFile returns the remote file's content (cat); a missing file wraps
// fs.ErrNotExist.
func (s *SSH) ReadFile(ctx context.Context, remote string) ([]byte, error) {
	p, err := s.remote(remote)
	if err != nil {
		return nil, err
	}
	q := shQuote(p)
	out, err := s.run(ctx, fmt.Sprintf("[ -e %s ] || exit %d; exec cat -- %s", q, exitNotExist, q), nil)
	switch {
	case exitCode(err) == exitNotExist:
		return nil, fmt.Errorf("target %s: read %s: %w", s.name, remote, fs.ErrNotExist)
	case err != nil:
		return nil, fmt.Errorf("target %s: read %s: %w", s.name, remote, err)
	}
	return out, nil
}

// ReadFileMax is ReadFile of a regular file (test -f, and not a symlink:
// test -h) of at most limit bytes, as Target.ReadFileMax says: the host
// sends at most limit+1 bytes of it (head -c), and more than limit bytes
// received end the session.
func (s *SSH) ReadFileMax(ctx context.Context, remote string, limit int64) ([]byte, error) {
	p, err := s.remote(remote)
	if err != nil {
		return nil, err
	}
	q := shQuote(p)
	script := fmt.Sprintf("[ -e %s ] || [ -h %s ] || exit %d; [ -f %s ] && ! [ -h %s ] || exit %d; exec head -c %d -- %s",
		q, q, exitNotExist, q, q, exitNotRegular, limit+1, q)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &cappedBuffer{limit: limit, full: cancel}
	err = s.runTo(ctx, script, nil, out)
	switch {
	case out.over:
		return nil, fmt.Errorf("target %s: read %s: %w", s.name, remote,
			boundedread.Refused(boundedread.ErrTooLarge, "%s: more than %s, the bound on this file", p, boundedread.Size(limit)))
	case exitCode(err) == exitNotExist:
		return nil, fmt.Errorf("target %s: read %s: %w", s.name, remote, fs.ErrNotExist)
	case exitCode(err) == exitNotRegular:
		return nil, fmt.Errorf("target %s: read %s: %w", s.name, remote,
			boundedread.Refused(boundedread.ErrNotRegular, "%s is not a regular file (a symlink, a FIFO, a device...): refused unread", p))
	case err != nil:
		return nil, fmt.Errorf("target %s: read %s: %w", s.name, remote, err)
	}
	return out.b.Bytes(), nil
}

// cappedBuffer keeps up to limit bytes written to it; past them it sets
// over, calls full once and drops the rest.
type cappedBuffer struct {
	b     bytes.Buffer
	limit int64
	over  bool
	full  func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.limit - int64(c.b.Len()); int64(len(p)) > room {
		c.b.Write(p[:max(room, 0)])
		if !c.over {
			c.over = true
			c.full()
		}
		return len(p), nil
	}
	return c.b.Write(p)
}

// RemoveAll removes remote with rm -rf; "." removes the working directory.
func (s *SSH) RemoveAll(ctx context.Context, remote string) error {
	p, err := s.remote(remote)
	if err != nil {
		return err
	}
	if _, err := s.run(ctx, "rm -rf -- "+shQuote(p), nil); err != nil {
		return fmt.Errorf("target %s: remove %s: %w", s.name, remote, err)
	}
	return nil
}

// clockSamples is how many times Info reads the host's clock; it keeps
// the reading with the shortest round trip.
const clockSamples = 5

// Info runs uname -s and uname -m, then reads the host's clock with
// date +%s%N clockSamples times in the same session, each time on a line
// sent to its standard input, so a round trip is one message each way
// and the start of date, not a new session. The offset is the host's
// time minus the midpoint of the caller's clock when the line was sent
// and when the reply arrived, for the sample with the shortest round
// trip; the uncertainty is half that round trip (plus half a second on a
// host whose date has no %N).
func (s *SSH) Info(ctx context.Context) (Info, error) {
	sess, release, err := s.session(ctx)
	if err != nil {
		return Info{}, fmt.Errorf("target %s: info: %w", s.name, err)
	}
	defer release()
	stop := context.AfterFunc(ctx, release)
	defer stop()
	info, err := s.info(sess)
	if ctx.Err() != nil {
		return Info{}, ctx.Err()
	}
	if err != nil {
		return Info{}, fmt.Errorf("target %s: info: %w", s.name, err)
	}
	return info, nil
}

func (s *SSH) info(sess *ssh.Session) (Info, error) {
	stdin, err := sess.StdinPipe()
	if err != nil {
		return Info{}, err
	}
	stdout, err := sess.StdoutPipe()
	if err != nil {
		return Info{}, err
	}
	if err := sess.Start("sh -c " + shQuote("uname -s && uname -m && while read -r x; do date +%s%N; done")); err != nil {
		return Info{}, err
	}
	defer func() { _ = stdin.Close(); _ = sess.Wait() }()
	br := bufio.NewReader(stdout)
	var uname [2]string
	for i := range uname {
		if uname[i], err = br.ReadString('\n'); err != nil {
			return Info{}, fmt.Errorf("uname: %w", err)
		}
	}
	info := Info{OS: goOS(strings.TrimSpace(uname[0])), Arch: goArch(strings.TrimSpace(uname[1])), Dir: s.dir}
	best := time.Duration(-1)
	for range clockSamples {
		t0 := time.Now()
		if _, err := io.WriteString(stdin, "\n"); err != nil {
			return Info{}, err
		}
		line, err := br.ReadString('\n')
		t1 := time.Now()
		if err != nil {
			return Info{}, fmt.Errorf("date: %w", err)
		}
		host, extra, err := parseDate(strings.TrimSpace(line))
		if err != nil {
			return Info{}, err
		}
		if rtt := t1.Sub(t0); best < 0 || rtt < best {
			best = rtt
			info.ClockOffset = host.Sub(t0.Add(rtt / 2))
			info.ClockUncertainty = rtt/2 + extra
		}
	}
	return info, nil
}

// parseDate reads date +%s%N's output: seconds and nanoseconds, or, where
// %N is not supported, seconds followed by "N" or nothing, taken as the
// middle of that second with half a second more uncertainty.
func parseDate(s string) (time.Time, time.Duration, error) {
	if sec, ok := strings.CutSuffix(s, "N"); ok || len(s) <= 10 {
		n, err := strconv.ParseInt(sec, 10, 64)
		if err != nil {
			return time.Time{}, 0, fmt.Errorf("date +%%s%%N printed %q, want a number", s)
		}
		return time.Unix(n, 5e8), 500 * time.Millisecond, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || len(s) < 19 {
		return time.Time{}, 0, fmt.Errorf("date +%%s%%N printed %q, want seconds and nanoseconds", s)
	}
	return time.Unix(0, n), 0, nil
}

// goOS maps uname -s to GOOS spelling.
func goOS(s string) string {
	switch l := strings.ToLower(s); {
	case strings.HasPrefix(l, "mingw"), strings.HasPrefix(l, "msys"), strings.HasPrefix(l, "cygwin"):
		return "windows"
	case l == "sunos":
		return "solaris"
	default:
		return l // linux, darwin, freebsd, openbsd, netbsd, aix
	}
}

// goArch maps uname -m to GOARCH spelling.
func goArch(m string) string {
	switch m {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	case "i386", "i486", "i586", "i686", "x86":
		return "386"
	case "armv6l", "armv7l", "armv7", "arm":
		return "arm"
	case "ppc64le":
		return "ppc64le"
	case "s390x":
		return "s390x"
	case "riscv64":
		return "riscv64"
	default:
		return m
	}
}
