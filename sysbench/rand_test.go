package sysbench

import (
	"math"
	"testing"
)

func testRand(typ RandType, seed uint64) *Rand {
	o := DefaultConfig().Rand
	o.Type = typ
	return NewRand(o, seed, 0)
}

// draws returns counts per value of n draws of Default(1, size).
func draws(r *Rand, size int64, n int) []int {
	c := make([]int, size+1)
	for range n {
		v := r.Default(1, size)
		if v < 1 || v > size {
			panic("out of range")
		}
		c[v]++
	}
	return c
}

func frac(c []int, lo, hi int64, n int) float64 {
	s := 0
	for v := lo; v <= hi; v++ {
		s += c[v]
	}
	return float64(s) / float64(n)
}

func TestRandRangeAndDeterminism(t *testing.T) {
	for _, typ := range RandTypes() {
		t.Run(string(typ), func(t *testing.T) {
			for _, r := range []struct{ a, b int64 }{{1, 1}, {1, 2}, {5, 9}, {1, 10000}, {-10, 10}} {
				rnd := testRand(typ, 42)
				seen := map[int64]bool{}
				for range 20000 {
					v := rnd.Default(r.a, r.b)
					if v < r.a || v > r.b {
						t.Fatalf("Default(%d,%d) = %d, out of range", r.a, r.b, v)
					}
					seen[v] = true
				}
				if r.b-r.a < 3 && typ != RandSpecial && int64(len(seen)) != r.b-r.a+1 {
					t.Errorf("Default(%d,%d) hit only %v", r.a, r.b, seen)
				}
			}
			a, b := testRand(typ, 7), testRand(typ, 7)
			c := NewRand(a.o, 7, 1) // another thread
			same := 0
			for range 1000 {
				x, y, z := a.Default(1, 1e6), b.Default(1, 1e6), c.Default(1, 1e6)
				if x != y {
					t.Fatal("equal seeds and streams gave different sequences")
				}
				if x == z {
					same++
				}
			}
			if typ == RandUniform && same > 10 {
				t.Errorf("streams 0 and 1 agree on %d of 1000 draws", same)
			}
		})
	}
}

func TestRandShapes(t *testing.T) {
	const size, n = 10000, 200000
	tests := []struct {
		typ   RandType
		check func(t *testing.T, c []int)
	}{
		{RandUniform, func(t *testing.T, c []int) {
			// every tenth of the range gets about 10%
			for d := range int64(10) {
				if f := frac(c, d*1000+1, (d+1)*1000, n); math.Abs(f-0.1) > 0.01 {
					t.Errorf("decile %d holds %.3f, want 0.1", d, f)
				}
			}
		}},
		{RandGaussian, func(t *testing.T, c []int) {
			// mean of 12 uniforms: sd = 1/sqrt(144) of the range, so the middle
			// 20% (±1.2 sd) holds about 77% and the outer 20% almost nothing.
			if f := frac(c, 4001, 6000, n); math.Abs(f-0.77) > 0.03 {
				t.Errorf("middle 20%% holds %.3f, want about 0.77", f)
			}
			if f := frac(c, 1, 1000, n) + frac(c, 9001, 10000, n); f > 0.001 {
				t.Errorf("outer 20%% holds %.4f, want about 0", f)
			}
		}},
		{RandSpecial, func(t *testing.T, c []int) {
			// 75% in the hot 1% (100 rows) in the middle: 4951..5050, plus the
			// gaussian share that falls there.
			f := frac(c, 4951, 5050, n)
			if f < 0.75 || f > 0.80 {
				t.Errorf("hot 1%% holds %.3f, want 0.75 plus a little", f)
			}
		}},
		{RandPareto, func(t *testing.T, c []int) {
			// h=0.2: P(v <= q*n) = q^(ln 0.8/ln 0.2), 80% in the lowest 20%
			if f := frac(c, 1, 2000, n); math.Abs(f-0.8) > 0.01 {
				t.Errorf("lowest 20%% holds %.3f, want 0.80", f)
			}
			if c[1] <= c[100] || c[100] <= c[5000] {
				t.Errorf("pareto not decreasing: c[1]=%d c[100]=%d c[5000]=%d", c[1], c[100], c[5000])
			}
		}},
		{RandZipfian, func(t *testing.T, c []int) {
			// P(k) ~ k^-0.8: rank 1 most frequent, c1/c2 = 2^0.8 = 1.74
			for k := 2; k <= size; k++ {
				if c[k] > c[1] {
					t.Fatalf("rank %d (%d) more frequent than rank 1 (%d)", k, c[k], c[1])
				}
			}
			if r := float64(c[1]) / float64(c[2]); math.Abs(r-math.Pow(2, 0.8)) > 0.15 {
				t.Errorf("c1/c2 = %.3f, want %.3f", r, math.Pow(2, 0.8))
			}
			// expected share of rank 1: 1/H(n, 0.8)
			var h float64
			for k := 1; k <= size; k++ {
				h += math.Pow(float64(k), -0.8)
			}
			if f, want := float64(c[1])/n, 1/h; math.Abs(f-want) > 0.15*want {
				t.Errorf("rank 1 share %.4f, want %.4f", f, want)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(string(tc.typ), func(t *testing.T) {
			tc.check(t, draws(testRand(tc.typ, 1), size, n))
		})
	}
}

func TestZipfianExponents(t *testing.T) {
	for _, theta := range []float64{0, 0.5, 0.99, 1, 1.01, 2} {
		o := DefaultConfig().Rand
		o.Type, o.ZipfianExp = RandZipfian, theta
		r := NewRand(o, 3, 0)
		c := draws(r, 100, 100000)
		want := math.Pow(2, theta)
		if got := float64(c[1]) / float64(c[2]); math.Abs(got-want) > 0.1*want {
			t.Errorf("theta %g: c1/c2 = %.3f, want %.3f", theta, got, want)
		}
	}
}

func TestDataShapes(t *testing.T) {
	r := testRand(RandUniform, 5)
	c := string(r.AppendC(nil))
	pad := string(r.AppendPad(nil))
	if len(c) != 119 || len(pad) != 59 {
		t.Fatalf("len(c)=%d len(pad)=%d, want 119 and 59", len(c), len(pad))
	}
	digits := [10]int{}
	for i := range 2000 {
		s := r.AppendC(nil)
		for j, ch := range s {
			if (j+1)%12 == 0 {
				if ch != '-' {
					t.Fatalf("c %d: %q has no dash at %d", i, s, j)
				}
				continue
			}
			if ch < '0' || ch > '9' {
				t.Fatalf("c %q has a non-digit", s)
			}
			digits[ch-'0']++
		}
	}
	for d, n := range digits {
		if f := float64(n) / (2000 * 110); math.Abs(f-0.1) > 0.005 {
			t.Errorf("digit %d frequency %.4f, want 0.1", d, f)
		}
	}
}

func TestUniqueIDs(t *testing.T) {
	seen := map[int64]bool{}
	for th := range 4 {
		u := newUniqueIDs(th, 4, 99)
		for range 5000 {
			id := u.id()
			if id >= 0 || id < math.MinInt32 {
				t.Fatalf("id %d not in [-2^31, -1]", id)
			}
			if seen[id] {
				t.Fatalf("id %d handed out twice", id)
			}
			seen[id] = true
		}
	}
}

func TestRowSourceDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TableSize = 3
	cfg.AutoInc = false
	a, b := newRowSource(cfg, 11, 2), newRowSource(cfg, 11, 2)
	var ba, bb []byte
	for !a.done() {
		ba = a.appendRow(ba)
		bb = b.appendRow(bb)
	}
	if string(ba) != string(bb) || len(ba) == 0 {
		t.Fatal("same seed and table gave different rows")
	}
	if ba[1] != '1' || ba[2] != ',' {
		t.Errorf("first row %q does not start with id 1", ba[:10])
	}
}
