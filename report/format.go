package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"vmbench/internal/textfmt"
)

// Binary (IEC, powers of 1024) and decimal (SI, powers of 1000) byte
// units. vdbench's "MB/sec" is MiB per second; a drive's "GB/s" in a
// review is GB (10⁹ bytes) per second.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
	TiB int64 = 1 << 40

	KB int64 = 1e3
	MB int64 = 1e6
	GB int64 = 1e9
	TB int64 = 1e12
)

// Millis is d in milliseconds, fractions kept: 1500µs is 1.5.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// FormatMillis writes d in milliseconds with digits decimals and no unit,
// as latency columns headed "(ms)" show it: FormatMillis(1500µs, 2) is
// "1.50".
func FormatMillis(d time.Duration, digits int) string {
	return strconv.FormatFloat(Millis(d), 'f', digits, 64)
}

// Latency writes d for people, as reviews state latencies: in µs to a
// tenth below 1 ms ("87.5 µs"), else in ms to a thousandth ("1.204 ms").
func Latency(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
	return fmt.Sprintf("%.3f ms", Millis(d))
}

// Grouped writes v rounded to digits decimals with its integer part in
// groups of three, as reviews print rates: Grouped(7567.34, 1) is
// "7,567.3" and Grouped(2358609.4, 0) is "2,358,609". NaN and the
// infinities are written as strconv writes them.
func Grouped(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return s
	}
	whole, frac, ok := strings.Cut(s, ".")
	if !ok {
		return textfmt.Group(whole)
	}
	return textfmt.Group(whole) + "." + frac
}

// BinaryBytes writes a byte count in the largest binary unit (KiB, MiB,
// GiB, ... EiB) it reaches, to one decimal: 81604378624 is "76.0 GiB";
// below 1 KiB it is "512 bytes".
func BinaryBytes(n int64) string {
	return scaledBytes(n, 1024, []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"})
}

// DecimalBytes writes a byte count in the largest decimal unit (kB, MB,
// GB, ... EB) it reaches, to one decimal: 81604378624 is "81.6 GB"; below
// 1 kB it is "512 bytes".
func DecimalBytes(n int64) string {
	return scaledBytes(n, 1000, []string{"kB", "MB", "GB", "TB", "PB", "EB"})
}

func scaledBytes(n int64, base float64, units []string) string {
	v, u := float64(n), -1
	for v >= base && u < len(units)-1 {
		v, u = v/base, u+1
	}
	if u < 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f %s", v, units[u])
}

// FormatRate writes a rate briefly, in decimal multiples: 950, 12.5K,
// 1.2M, 3G (to three decimals of the multiple, trailing zeros dropped).
func FormatRate(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimFloat(v/1e9) + "G"
	case a >= 1e6:
		return trimFloat(v/1e6) + "M"
	case a >= 1e3:
		return trimFloat(v/1e3) + "K"
	}
	return trimFloat(v)
}

// trimFloat writes v to three decimals, trailing zeros dropped.
func trimFloat(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) }
