//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package scenarios

import "os"

// tryLock is a no-op where flock is not available: a running campaign
// is not detected there.
func tryLock(*os.File) (held bool, err error) { return false, nil }

// fileLocks says tryLock cannot tell a held lock here.
const fileLocks = false
