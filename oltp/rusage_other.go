//go:build !unix

package oltp

import "time"

// readUsage has nothing to read on this platform: Results carry no
// ClientCost.
func readUsage() usage { return usage{at: time.Now()} }
