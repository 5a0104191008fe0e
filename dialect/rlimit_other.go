//go:build !unix

package dialect

// ProcessFileLimit returns 0: the open-file limit is not known here.
func ProcessFileLimit() uint64 { return 0 }
