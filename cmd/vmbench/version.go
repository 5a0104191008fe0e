package main

import (
	"runtime/debug"
	"strings"
)

// develVersion is the version of a build that says nothing about its
// source: `go run` and `go test` (which do not stamp version control
// information by default), `go build -buildvcs=false`, a build outside
// a git checkout (or in a git worktree, which go build does not read).
const develVersion = "devel"

// versionFrom is vmbench's version: ldflags when -ldflags set it;
// else, from the build information bi (ok as debug.ReadBuildInfo
// returned it), the main module's version when it is a release (a tag,
// v1.2.3, with +dirty for uncommitted changes), or the commit it was
// built from as git names it short (vcs.revision's first 7 hex digits,
// with -dirty when vcs.modified), which go build records in a git
// checkout; else develVersion.
func versionFrom(ldflags string, bi *debug.BuildInfo, ok bool) string {
	if ldflags != "" {
		return ldflags
	}
	if !ok || bi == nil {
		return develVersion
	}
	var rev string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	v := bi.Main.Version
	pseudo := rev != "" && strings.Contains(v, rev[:min(12, len(rev))]) // v0.0.0-<time>-<revision>: no tag
	if v != "" && v != "(devel)" && !pseudo {
		return v
	}
	if rev == "" {
		return develVersion
	}
	short := rev[:min(7, len(rev))]
	if modified {
		short += "-dirty"
	}
	return short
}
