package dialect

// SpareFiles are the open files a process needs besides its database
// connections: the standard streams, the pool's idle connection, the
// result file.
const SpareFiles = 64

// FilesPerConn returns the open files one connection of driver d takes: a
// socket for MySQL and SQL Server; the database file and its write-ahead
// log for SQLite (measured: 20,000 files gave 10,001 SQLite connections).
func FilesPerConn(d Driver) int {
	if d == SQLite {
		return 2
	}
	return 1
}

// FilesNeeded returns the open files conns connections of driver d need
// at once, SpareFiles included.
func FilesNeeded(d Driver, conns int) uint64 {
	return uint64(conns)*uint64(FilesPerConn(d)) + SpareFiles
}
