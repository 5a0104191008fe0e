package testdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// sysProcAttr makes the kernel kill the server when the test process dies
// without calling Stop (a test binary killed by -timeout, say), so no server
// outlives its tests. The signal follows the starting thread, not the
// process; start keeps that thread locked until the server exits.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// serverUsers are the accounts, in order of preference, that initdb and
// postgres run as when the tests run as root (both refuse root).
var serverUsers = []string{"postgres", "nobody"}

// serverCredential returns the account a PostgreSQL server runs as: nil
// when this process is not root, else the first of serverUsers that exists.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range serverUsers {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.Atoi(u.Uid)
		gid, err2 := strconv.Atoi(u.Gid)
		if err1 != nil || err2 != nil {
			continue
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, fmt.Errorf("internal/testdb: running as root, and none of the accounts %v exists for PostgreSQL, which refuses to run as root", serverUsers)
}

// serverProcAttr is sysProcAttr plus, as root, serverCredential's account.
// Go sets the credentials in the child before the parent-death signal,
// which a change of credentials would clear.
func serverProcAttr() *syscall.SysProcAttr {
	a := sysProcAttr()
	if cred, err := serverCredential(); err == nil {
		a.Credential = cred
	}
	return a
}

// giveToServerUser makes dir (and what is in it) the server account's, so
// that a PostgreSQL run as that account can write there; nothing to do
// when this process is not root.
func giveToServerUser(dir string) error {
	cred, err := serverCredential()
	if err != nil || cred == nil {
		return err
	}
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(cred.Uid), int(cred.Gid))
	})
}
