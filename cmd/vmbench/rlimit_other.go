//go:build !unix

package main

// processFileLimit returns 0: the open-file limit is not known here.
func processFileLimit() uint64 { return 0 }
