package dialect

import (
	"fmt"
	"time"

	"vmbench/internal/textfmt"
)

// Size returns the rows and megabytes of s for a loader's summary line:
// "400,000 rows (75.2 MB)", MB being decimal megabytes (10^6 bytes).
func (s LoadStats) Size() string {
	return fmt.Sprintf("%s rows (%.1f MB)", textfmt.Thousands(s.Rows), float64(s.Bytes)/1e6)
}

// Rate returns elapsed and the load rates of s over it, in rows per second
// and decimal megabytes (10^6 bytes) per second: "1.52 s: 263,000 rows/s,
// 49.5 MB/s (MB = 10^6 bytes)". No time gives rates of 0.
func (s LoadStats) Rate(elapsed time.Duration) string {
	sec := elapsed.Seconds()
	var rows, mb float64
	if sec > 0 {
		rows, mb = float64(s.Rows)/sec, float64(s.Bytes)/1e6/sec
	}
	return fmt.Sprintf("%.2f s: %s rows/s, %.1f MB/s (MB = 10^6 bytes)", sec, textfmt.Thousands(int64(rows)), mb)
}
