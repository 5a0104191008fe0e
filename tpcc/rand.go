package tpcc

import (
	"math/rand/v2"
	"strconv"
)

// Rand is the random-number source of one loader thread or one terminal.
// Streams are derived from --seed and a stream id (a warehouse, a
// terminal), so loads and runs are reproducible and any warehouse can be
// loaded alone, by any process, with the same data.
type Rand struct{ r *rand.Rand }

// Stream kinds keep the streams of different uses of one id apart.
const (
	streamLoad     = 1
	streamTerminal = 2
	streamRun      = 3
	streamItems    = 4
)

// NewRand returns the stream (kind, id) of seed.
func NewRand(seed int64, kind, id int) *Rand {
	return &Rand{rand.New(rand.NewPCG(uint64(seed), uint64(kind)<<40|uint64(id)))}
}

// Int returns a uniform integer in [lo, hi] (TPC-C 2.1.4's random(x, y)).
func (r *Rand) Int(lo, hi int) int { return lo + r.r.IntN(hi-lo+1) }

// Float returns a uniform value in [0, 1).
func (r *Rand) Float() float64 { return r.r.Float64() }

// NURand is TPC-C 2.1.6's non-uniform random function:
// (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func (r *Rand) NURand(a, x, y, c int) int {
	return ((r.Int(0, a)|r.Int(x, y))+c)%(y-x+1) + x
}

// Percent reports true with probability p percent.
func (r *Rand) Percent(p int) bool { return r.r.IntN(100) < p }

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// AString is TPC-C 4.3.2.2's random a-string of lo to hi alphanumeric
// characters.
func (r *Rand) AString(lo, hi int) string {
	b := make([]byte, r.Int(lo, hi))
	for i := range b {
		b[i] = alnum[r.r.IntN(len(alnum))]
	}
	return string(b)
}

// NString is TPC-C 4.3.2.2's random n-string of lo to hi digits.
func (r *Rand) NString(lo, hi int) string {
	b := make([]byte, r.Int(lo, hi))
	for i := range b {
		b[i] = byte('0' + r.r.IntN(10))
	}
	return string(b)
}

// Zip is TPC-C 4.3.2.7's zip code: 4 random digits then "11111".
func (r *Rand) Zip() string { return r.NString(4, 4) + "11111" }

// Data is an i_data or s_data value (TPC-C 4.3.3.1): an a-string of 26 to
// 50 characters, in 10% of rows with "ORIGINAL" at a random position.
func (r *Rand) Data() string {
	s := r.AString(26, 50)
	if !r.Percent(10) {
		return s
	}
	at := r.Int(0, len(s)-8)
	return s[:at] + "ORIGINAL" + s[at+8:]
}

// Money returns a uniform amount in [lo, hi] cents as a decimal string
// with two fraction digits ("12.34"), exact in every database.
func (r *Rand) Money(lo, hi int) string { return cents(r.Int(lo, hi)) }

// cents formats n cents as a decimal string ("-10.00", "0.05").
func cents(n int) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	frac := strconv.Itoa(n % 100)
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return sign + strconv.Itoa(n/100) + "." + frac
}

// Tax returns a uniform tax rate in [0.0000, 0.2000] (w_tax, d_tax) as a
// decimal string with four fraction digits.
func (r *Rand) Tax() string { return fraction4(r.Int(0, 2000)) }

// fraction4 formats n ten-thousandths ("0.0500").
func fraction4(n int) string {
	s := strconv.Itoa(n % 10000)
	for len(s) < 4 {
		s = "0" + s
	}
	return strconv.Itoa(n/10000) + "." + s
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName is TPC-C 4.3.2.3's customer last name of number n in [0, 999]:
// the syllables of its three digits, e.g. 371 is "PRICALLYOUGHT".
func LastName(n int) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// The A values of NURand per field (TPC-C 2.1.6).
const (
	aLast = 255  // C_LAST, over 0..999
	aCID  = 1023 // C_ID, over 1..3000
	aItem = 8191 // OL_I_ID, over 1..100000
)

// Constants are the C values of NURand, one per field (TPC-C 2.1.6):
// the same for every terminal of a run. The load's are stored in the
// database by prepare; each run draws its own under the C-delta rule.
type Constants struct {
	CLast int `json:"c_last"`  // in [0, 255]
	CID   int `json:"c_id"`    // in [0, 1023]
	Item  int `json:"ol_i_id"` // in [0, 8191]
}

// LoadConstants draws the C-Load constants.
func LoadConstants(r *Rand) Constants {
	return Constants{CLast: r.Int(0, aLast), CID: r.Int(0, aCID), Item: r.Int(0, aItem)}
}

// ValidDelta reports whether C_LAST's run constant cRun may follow the
// load constant cLoad: TPC-C 2.1.6.1 requires |cRun - cLoad| in [65, 119]
// and neither 96 nor 112.
func ValidDelta(cLoad, cRun int) bool {
	d := cRun - cLoad
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// RunConstants draws a run's constants for data loaded with load: C_LAST
// obeys the C-delta rule (ValidDelta); C_ID and OL_I_ID are free.
func RunConstants(load Constants, r *Rand) Constants {
	var ok []int
	for c := 0; c <= aLast; c++ {
		if ValidDelta(load.CLast, c) {
			ok = append(ok, c)
		}
	}
	return Constants{CLast: ok[r.r.IntN(len(ok))], CID: r.Int(0, aCID), Item: r.Int(0, aItem)}
}

// CustomerLast draws a run's customer last name: NURand(255, 0, 999).
func (r *Rand) CustomerLast(c Constants) string { return LastName(r.NURand(aLast, 0, 999, c.CLast)) }

// CustomerID draws a run's customer id: NURand(1023, 1, 3000).
func (r *Rand) CustomerID(c Constants) int { return r.NURand(aCID, 1, CustomersPerDistrict, c.CID) }

// ItemID draws a New-Order line's item id: NURand(8191, 1, 100000).
func (r *Rand) ItemID(c Constants) int { return r.NURand(aItem, 1, Items, c.Item) }
