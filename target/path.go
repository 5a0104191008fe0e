package target

import (
	"fmt"
	"strings"
)

// checkPath enforces the remote-path rules of the package doc: p is "."
// (the working directory itself) or a relative, slash-separated path whose
// elements are all non-empty and none of them "." or "..". A backslash or a
// NUL byte is refused too, so a path means the same on every host (on
// Windows a backslash would be a separator). The error wraps ErrBadPath and
// names p.
func checkPath(p string) error {
	if p == "." {
		return nil
	}
	why := ""
	switch {
	case p == "":
		why = "it is empty"
	case strings.HasPrefix(p, "/"):
		why = "it is absolute"
	case strings.ContainsAny(p, "\\\x00"):
		why = "it holds a backslash or a NUL byte"
	default:
		for _, e := range strings.Split(p, "/") {
			switch e {
			case "":
				why = "it has an empty element (a doubled or trailing slash)"
			case ".":
				why = `it has a "." element`
			case "..":
				why = `it has a ".." element`
			}
			if why != "" {
				break
			}
		}
	}
	if why == "" {
		return nil
	}
	return fmt.Errorf("remote path %q: %w: %s (want \".\" or a relative slash-separated path like \"bin/agent\")", p, ErrBadPath, why)
}
