package sysbench

import (
	"strconv"
)

// Column values of the sbtest tables (sysbench 1.0 oltp_common.lua): c is
// ten groups of eleven random digits joined by '-', 119 characters; pad is
// five such groups, 59 characters. Digits are uniform 0..9. The same shapes
// are written at load, by the non-index UPDATE and by the re-INSERT of
// delete/insert.
const (
	cGroups   = 10
	padGroups = 5
	groupLen  = 11
	cLen      = cGroups*groupLen + cGroups - 1     // 119
	padLen    = padGroups*groupLen + padGroups - 1 // 59
)

// pow11 is 10^11: one draw below it gives eleven independent uniform digits.
const pow11 = 100_000_000_000

// AppendC appends a random c value (119 characters) to buf.
func (r *Rand) AppendC(buf []byte) []byte { return r.appendGroups(buf, cGroups) }

// AppendPad appends a random pad value (59 characters) to buf.
func (r *Rand) AppendPad(buf []byte) []byte { return r.appendGroups(buf, padGroups) }

func (r *Rand) appendGroups(buf []byte, groups int) []byte {
	for g := range groups {
		if g > 0 {
			buf = append(buf, '-')
		}
		v := r.r.Uint64N(pow11)
		var d [groupLen]byte
		for i := groupLen - 1; i >= 0; i-- {
			d[i] = byte('0' + v%10)
			v /= 10
		}
		buf = append(buf, d[:]...)
	}
	return buf
}

// K returns a k value: Default(1, tableSize), so it follows --rand-type
// (sysbench draws k with rand.default both at load and at run).
func (r *Rand) K(tableSize int64) int64 { return r.Default(1, max(tableSize, 1)) }

// rowSource generates the rows of one table at prepare, from the table's
// own random stream, so any table can be loaded by any thread or process
// and gives the same data for the same --rand-seed.
type rowSource struct {
	rnd     *Rand
	size    int64
	autoInc bool
	next    int64 // id of the next row, from 1
}

func newRowSource(cfg Config, seed uint64, table int) *rowSource {
	return &rowSource{rnd: NewRand(cfg.Rand, seed, 1<<32+uint64(table)), size: cfg.TableSize, autoInc: cfg.AutoInc, next: 1}
}

// done reports whether every row has been produced.
func (s *rowSource) done() bool { return s.next > s.size }

// appendRow appends "(k,'c','pad')", or "(id,k,'c','pad')" without
// auto-increment, to an INSERT's VALUES list. Values are digits and dashes
// only, so they are written as literals, as sysbench's bulk insert does.
func (s *rowSource) appendRow(buf []byte) []byte {
	buf = append(buf, '(')
	if !s.autoInc {
		buf = strconv.AppendInt(buf, s.next, 10)
		buf = append(buf, ',')
	}
	buf = strconv.AppendInt(buf, s.rnd.K(s.size), 10)
	buf = append(buf, ",'"...)
	buf = s.rnd.AppendC(buf)
	buf = append(buf, "','"...)
	buf = s.rnd.AppendPad(buf)
	buf = append(buf, "')"...)
	s.next++
	return buf
}

// uniqueIDs hands out ids for oltp_insert with --auto-inc=off: distinct
// within a run across all threads (thread t takes the t-th residue class)
// and scrambled over the negative int32 range by an odd multiplier, a
// bijection, so they never collide with the loaded ids 1..table-size and
// rarely with ids of earlier runs (sysbench draws from a unique 32-bit
// generator for the same purpose).
type uniqueIDs struct {
	next, step uint32
	offset     uint32
}

func newUniqueIDs(thread, threads int, seed uint64) *uniqueIDs {
	return &uniqueIDs{next: uint32(thread), step: uint32(threads), offset: uint32(splitmix(seed))}
}

// id returns the next id, in [-2^31, -1].
func (u *uniqueIDs) id() int64 {
	x := (u.next*0x9E3779B1 + u.offset) & 0x7fffffff // bijection on 31 bits
	u.next += u.step
	return -int64(x) - 1
}
