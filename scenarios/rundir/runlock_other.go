//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rundir

import "os"

// tryLock is a no-op where flock is not available: a running campaign
// is not detected there.
func tryLock(*os.File) (held bool, err error) { return false, nil }

// FileLocks says tryLock cannot tell a held lock here.
const FileLocks = false
