package parmfile

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Span is the part of an SD that one WD addresses: bytes [Start, End).
//
// Start and End are multiples of Unit, the least common multiple of the
// target's logical block size and of every transfer size the WD issues (for
// the (min,max,align) form: of the block size and align), so every random
// offset aligned to its transfer size lies inside the span and every
// sequential pass ends exactly at End. Start is at least Unit: LBA 0, where
// a partition table or label lives, is never touched (as in vdbench).
type Span struct {
	Start, End int64
	// Unit is the alignment of Start and End.
	Unit int64
	// BlockSize is the target's logical block size, the O_DIRECT alignment.
	BlockSize int64
}

// Len is the span's length in bytes.
func (s Span) Len() int64 { return s.End - s.Start }

// XferPlan is a WD's transfer sizes, checked against a block size
// (PlanXfer), as the engine draws them. Sizes are in bytes.
type XferPlan struct {
	// Sizes and Cum (cumulative weights as fractions, the last 1) for the
	// distribution form; a single size has one entry.
	Sizes []int64
	Cum   []float64
	// Min, Max, Align for the (min,max,align) form (Align > 0): a size is
	// a multiple of Align in [Min, Max], offsets are aligned to Align.
	Min, Max, Align int64
	// Largest is the largest size the WD can issue.
	Largest int64
}

// PlanXfer checks x against blockSize, a logical block size in bytes, and
// returns its plan and its alignment unit in bytes (the lcm of the block
// size and every size, or of the block size and align). An error says
// which size or percentage does not fit the block size.
func PlanXfer(x XferSize, blockSize int64) (XferPlan, int64, error) {
	if blockSize <= 0 {
		return XferPlan{}, 0, fmt.Errorf("logical block size %d is not valid", blockSize)
	}
	if x.Max > 0 {
		align := x.Align
		if align == 0 {
			align = blockSize
		}
		if align%blockSize != 0 {
			return XferPlan{}, 0, fmt.Errorf("xfersize=(%d,%d,%d): align %d is not a multiple of the logical block size (%d bytes)",
				x.Min, x.Max, x.Align, align, blockSize)
		}
		lo := (max(x.Min, 1) + align - 1) / align * align
		hi := x.Max / align * align
		if lo > hi {
			return XferPlan{}, 0, fmt.Errorf("xfersize=(%d,%d,%d): no multiple of %d lies between min and max", x.Min, x.Max, x.Align, align)
		}
		return XferPlan{Min: lo, Max: hi, Align: align, Largest: hi}, lcm(blockSize, align), nil
	}
	if len(x.Sizes) == 0 {
		return XferPlan{}, 0, fmt.Errorf("no xfersize")
	}
	if len(x.Pcts) != 0 && len(x.Pcts) != len(x.Sizes) {
		return XferPlan{}, 0, fmt.Errorf("xfersize has %d sizes but %d percentages", len(x.Sizes), len(x.Pcts))
	}
	p := XferPlan{Sizes: make([]int64, len(x.Sizes)), Cum: make([]float64, len(x.Sizes))}
	unit := blockSize
	var total float64
	for i, s := range x.Sizes {
		if s <= 0 || s%blockSize != 0 {
			return XferPlan{}, 0, fmt.Errorf("xfersize %d is not a multiple of the logical block size (%d bytes)", s, blockSize)
		}
		w := 100.0
		if len(x.Pcts) > 0 {
			w = x.Pcts[i]
		}
		if w < 0 || math.IsNaN(w) {
			return XferPlan{}, 0, fmt.Errorf("xfersize %d has percentage %g", s, w)
		}
		total += w
		p.Sizes[i], p.Cum[i] = s, total
		p.Largest = max(p.Largest, s)
		unit = lcm(unit, s)
		if unit > maxUnit {
			return XferPlan{}, 0, fmt.Errorf("xfersizes %v have no common alignment below %d bytes", x.Sizes, int64(maxUnit))
		}
	}
	if total <= 0 {
		return XferPlan{}, 0, fmt.Errorf("xfersize percentages add up to 0")
	}
	for i := range p.Cum {
		p.Cum[i] /= total
	}
	p.Cum[len(p.Cum)-1] = 1
	return p, unit, nil
}

// pctRange returns r as a [lo, hi] fraction pair, [0, 1] when r is unset.
func pctRange(r [2]float64) (lo, hi float64, err error) {
	if r[0] == 0 && r[1] == 0 {
		return 0, 1, nil
	}
	if r[0] < 0 || r[1] > 100 || r[0] >= r[1] || math.IsNaN(r[0]) || math.IsNaN(r[1]) {
		return 0, 0, fmt.Errorf("range=(%g,%g) is not valid (0 <= low < high <= 100)", r[0], r[1])
	}
	return r[0] / 100, r[1] / 100, nil
}

// SpanOf returns the span of wd on sd, whose target holds capacity bytes
// in logical blocks of blockSize bytes.
//
// The SD's extent is its first size= bytes (all of the target when size=
// is not set), narrowed by the SD's range=; the WD's range= is a
// percentage of that extent. Start is rounded up and End down to the
// alignment unit (see Span), and Start is at least one unit. A transfer
// size that is not a multiple of the block size, or a span that holds no
// largest transfer once aligned, is refused with an error naming the
// block size.
func SpanOf(sd SD, wd WD, capacity, blockSize int64) (Span, error) {
	s, err := spanOf(sd, wd, capacity, blockSize)
	var small *spanTooSmall
	if errors.As(err, &small) {
		if least, merr := MinSize(sd, wd, blockSize); merr == nil {
			err = fmt.Errorf("%s (valid: size= of at least %s, or smaller transfers)", small.msg, FormatSize(least))
		}
	}
	return s, err
}

// spanTooSmall is SpanOf's error for a span that holds no largest
// transfer.
type spanTooSmall struct{ msg string }

func (e *spanTooSmall) Error() string { return e.msg }

// MinSize is the smallest size= in bytes (the sd's extent, before its and
// wd's range=) on which wd has a span on a target of blockSize-byte
// logical blocks: twice the alignment unit without range= (the span
// starts one unit in, LBA 0 never being used, and must hold the largest
// transfer, which divides the unit), more with range=. An error is
// SpanOf's for reasons other than the size (transfer sizes, ranges).
func MinSize(sd SD, wd WD, blockSize int64) (int64, error) {
	fits := func(e int64) (bool, error) {
		probe := sd
		probe.Size = e
		_, err := spanOf(probe, wd, e, blockSize)
		var small *spanTooSmall
		if errors.As(err, &small) {
			return false, nil
		}
		return err == nil, err
	}
	_, unit, err := PlanXfer(wd.Xfer, blockSize)
	if err != nil {
		return 0, err
	}
	lo, hi := int64(0), 2*unit // fits(lo) is false, fits(hi) is sought
	for {
		ok, err := fits(hi)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		if hi > math.MaxInt64/4 {
			return 0, fmt.Errorf("no size= gives wd=%s a span of its largest transfer", wd.Name)
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok, _ := fits(mid); ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

func spanOf(sd SD, wd WD, capacity, blockSize int64) (Span, error) {
	where := fmt.Sprintf("wd=%s on sd=%s (%s)", wd.Name, sd.Name, sd.Lun)
	x, unit, err := PlanXfer(wd.Xfer, blockSize)
	if err != nil {
		return Span{}, fmt.Errorf("%s: %w", where, err)
	}
	extent := capacity
	if sd.Size > 0 {
		if sd.Size > capacity {
			return Span{}, fmt.Errorf("%s: size=%d is larger than the lun (%d bytes)", where, sd.Size, capacity)
		}
		extent = sd.Size
	}
	slo, shi, err := pctRange(sd.Range)
	if err != nil {
		return Span{}, fmt.Errorf("sd=%s: %w", sd.Name, err)
	}
	wlo, whi, err := pctRange(wd.Range)
	if err != nil {
		return Span{}, fmt.Errorf("wd=%s: %w", wd.Name, err)
	}
	// Percentages of extents up to petabytes: float64 keeps 53 bits, far
	// more than the byte resolution that the rounding to Unit needs.
	sdStart, sdEnd := float64(extent)*slo, float64(extent)*shi
	lo := sdStart + (sdEnd-sdStart)*wlo
	hi := sdStart + (sdEnd-sdStart)*whi
	start := int64(math.Ceil(lo/float64(unit))) * unit
	end := int64(math.Floor(hi/float64(unit))) * unit
	start = max(start, unit)
	if end-start < x.Largest {
		return Span{}, &spanTooSmall{fmt.Sprintf("%s: the span [%d, %d) holds no %d-byte transfer once aligned to %d bytes "+
			"(the lcm of the transfer sizes and the %d-byte logical block size; the span starts at least one such unit in, LBA 0 being never used)",
			where, int64(lo), int64(hi), x.Largest, unit, blockSize)}
	}
	return Span{Start: start, End: end, Unit: unit, BlockSize: blockSize}, nil
}

// CheckSpans returns SpanOf's error for each wd of runs on the sds of
// lun, a target of capacity bytes in blockSize-byte blocks, once each
// (nil when every wd has a span there).
func CheckSpans(runs []Run, lun string, capacity, blockSize int64) []error {
	var errs []error
	seen := map[string]bool{}
	for _, r := range runs {
		for _, sd := range r.SDs {
			if sd.Lun != lun {
				continue
			}
			for _, wd := range r.WDs {
				if !slices.Contains(wd.SDs, sd.Name) {
					continue
				}
				if _, err := SpanOf(sd, wd, capacity, blockSize); err != nil && !seen[err.Error()] {
					seen[err.Error()] = true
					errs = append(errs, err)
				}
			}
		}
	}
	return errs
}

// maxUnit bounds the alignment unit (1 TiB) so that the lcm of odd
// transfer sizes cannot overflow.
const maxUnit = 1 << 40

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int64) int64 { return a / gcd(a, b) * b }
