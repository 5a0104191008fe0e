package agent

// The tests run real tools: the agent package itself never imports one
// (internal/deps checks it), so the test binary registers them here.
import (
	_ "vmbench/sysbench"
	_ "vmbench/tpcc"
	_ "vmbench/vdbench"
)
