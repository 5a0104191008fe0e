package blockio

import "golang.org/x/sys/unix"

const (
	rlimitNPROC  = unix.RLIMIT_NPROC
	rlimitNOFILE = unix.RLIMIT_NOFILE
)

// rlimit returns the soft limit of resource which; ok is false when it
// cannot be read or is unlimited.
func rlimit(which int) (int64, bool) {
	var r unix.Rlimit
	if err := unix.Getrlimit(which, &r); err != nil || r.Cur == unix.RLIM_INFINITY || r.Cur > 1<<62 {
		return 0, false
	}
	return int64(r.Cur), true
}
