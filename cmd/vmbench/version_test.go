package main

import (
	"runtime/debug"
	"testing"
)

// The version a build calls itself: -ldflags first, then what the build
// information says (as go build in a git checkout records it), else
// devel: never a made-up release number.
func TestVersionFrom(t *testing.T) {
	const rev = "17c24a12c35f09188ec7a42d47b4899e73f20029"
	info := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "vmbench", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	for _, tc := range []struct {
		name, ldflags string
		bi            *debug.BuildInfo
		ok            bool
		want          string
	}{
		{"make build (ldflags)", "v1.2.3-4-g17c24a1-dirty", info("(devel)", "vcs.revision", rev), true, "v1.2.3-4-g17c24a1-dirty"},
		{"go build at a tag", "", info("v1.2.3", "vcs.revision", rev, "vcs.modified", "false"), true, "v1.2.3"},
		{"go build at a tag, changes", "", info("v1.2.3+dirty", "vcs.revision", rev, "vcs.modified", "true"), true, "v1.2.3+dirty"},
		{"go build, no tag", "", info("v0.0.0-20261203092639-17c24a12c35f", "vcs.revision", rev, "vcs.modified", "false"), true, "17c24a1"},
		{"go build, no tag, changes", "", info("v0.0.0-20261203092639-17c24a12c35f+dirty", "vcs.revision", rev, "vcs.modified", "true"), true, "17c24a1-dirty"},
		{"go run -buildvcs=true", "", info("(devel)", "vcs.revision", rev, "vcs.modified", "true"), true, "17c24a1-dirty"},
		{"go run: no version control information", "", info("(devel)", "-compiler", "gc"), true, "devel"},
		{"no build information", "", nil, false, "devel"},
	} {
		if got := versionFrom(tc.ldflags, tc.bi, tc.ok); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
