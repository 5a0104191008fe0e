package review

import (
	// The tools the fixtures' campaigns and suites ran: Render reaches
	// them through the workload registry, where they register themselves.
	_ "vmbench/sysbench"
	_ "vmbench/tpcc"
	_ "vmbench/vdbench"
)
