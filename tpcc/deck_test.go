package tpcc

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestDeckExactPerRound: every 23 consecutive draws from the start (one
// round of the deck) hold 10 New-Order, 10 Payment and one of each other,
// over 23,000 draws, and the rounds are not all dealt in the same order.
func TestDeckExactPerRound(t *testing.T) {
	want := [numOps]int{opNewOrder: 10, opPayment: 10, opOrderStatus: 1, opDelivery: 1, opStockLevel: 1}
	r := NewRand(1, streamTerminal, 0)
	d := newDeck()
	var total [numOps]int
	orders := map[[deckSize]int]bool{}
	for round := range 1000 {
		var got [numOps]int
		var order [deckSize]int
		for i := range deckSize {
			op := d.draw(r)
			got[op]++
			order[i] = op
		}
		if got != want {
			t.Fatalf("round %d: %v, want %v", round, got, want)
		}
		orders[order] = true
		for op, n := range got {
			total[op] += n
		}
	}
	for op, n := range total {
		if n != 1000*want[op] {
			t.Errorf("%s: %d of 23,000 draws, want %d", OpNames[op], n, 1000*want[op])
		}
	}
	if len(orders) < 990 {
		t.Errorf("only %d distinct orders in 1000 rounds: the deck is not reshuffled", len(orders))
	}
}

// TestDeckTerminalDraws: a terminal deals from its deck, so its ops keep
// the exact mix too, and two terminals deal differently.
func TestDeckTerminalDraws(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Warehouses = 3
	a, b := newTerminal(cfg, 0), newTerminal(cfg, 1)
	var same int
	var counts [numOps]int
	for range 23 * 100 {
		opA, _ := a.Next()
		opB, _ := b.Next()
		counts[opA]++
		if opA == opB {
			same++
		}
	}
	if counts != [numOps]int{1000, 1000, 100, 100, 100} {
		t.Errorf("terminal's ops %v", counts)
	}
	if same == 23*100 {
		t.Error("two terminals deal the same sequence")
	}
}

// TestDeckTerminalHome: terminal t's home is warehouse t%W+1 and district
// (t/W)%10+1.
func TestDeckTerminalHome(t *testing.T) {
	for _, tc := range []struct{ W, t, w, d int }{
		{1, 0, 1, 1}, {1, 9, 1, 10}, {1, 10, 1, 1},
		{2, 0, 1, 1}, {2, 1, 2, 1}, {2, 2, 1, 2}, {2, 19, 2, 10}, {2, 20, 1, 1},
		{5, 7, 3, 2},
	} {
		cfg := DefaultConfig()
		cfg.Warehouses = tc.W
		term := newTerminal(cfg, tc.t)
		if term.w != tc.w || term.d != tc.d {
			t.Errorf("W=%d terminal %d: warehouse %d district %d, want %d %d", tc.W, tc.t, term.w, term.d, tc.w, tc.d)
		}
	}
}

// TestDeckKeyingAndThinkTimes: keying times are the constants of 5.2.5.7,
// think times have the means of 5.2.5.4 (within 1 % over 200,000 draws),
// never exceed 10 means, and reach that cap about e^-10 of the time; the
// wait scale multiplies both.
func TestDeckKeyingAndThinkTimes(t *testing.T) {
	wantKeying := [numOps]time.Duration{18 * time.Second, 3 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}
	wantMean := [numOps]time.Duration{12 * time.Second, 12 * time.Second, 10 * time.Second, 5 * time.Second, 5 * time.Second}
	for _, scale := range []float64{1, 0.5} {
		for op := range numOps {
			if got, want := keyingTime(op, scale), time.Duration(float64(wantKeying[op])*scale); got != want {
				t.Errorf("scale %g %s keying %s, want %s", scale, OpNames[op], got, want)
			}
			r := NewRand(7, streamTerminal, op)
			const n = 200000
			mean := float64(wantMean[op]) * scale
			var sum float64
			var capped int
			for range n {
				d := thinkTime(r, op, scale)
				if d < 0 || float64(d) > 10*mean+1 {
					t.Fatalf("scale %g %s think %s outside [0, 10 means]", scale, OpNames[op], d)
				}
				if float64(d) >= 10*mean-1 {
					capped++
				}
				sum += float64(d)
			}
			// The truncated exponential's mean is μ(1 - e^-10).
			got, want := sum/n, mean*(1-math.Exp(-10))
			if math.Abs(got-want) > 0.01*want {
				t.Errorf("scale %g %s mean think %s, want %s ±1%%", scale, OpNames[op], time.Duration(got), time.Duration(want))
			}
			// e^-10·n ≈ 9 draws reach the cap.
			if capped < 1 || capped > 30 {
				t.Errorf("scale %g %s: %d of %d think times at the 10·μ cap, want about %.0f", scale, OpNames[op], capped, n, n*math.Exp(-10))
			}
		}
	}
}

// TestDeckTerminalWaits: the first Next adds a ramp within one mean cycle, the
// later ones are the keying time exactly; with wait scale 0 every wait is
// zero.
func TestDeckTerminalWaits(t *testing.T) {
	if meanCycle != 476*time.Second/23 {
		t.Errorf("mean cycle %s, want 476 s / 23", meanCycle)
	}
	cfg := DefaultConfig()
	var ramps []time.Duration
	for i := range 200 {
		term := newTerminal(cfg, i)
		op, k := term.Next()
		ramp := k - keyingTimes[op]
		if ramp < 0 || ramp >= meanCycle {
			t.Fatalf("terminal %d: first wait %s for %s: ramp %s outside [0, %s)", i, k, OpNames[op], ramp, meanCycle)
		}
		ramps = append(ramps, ramp)
		for range 50 {
			op, k := term.Next()
			if k != keyingTimes[op] {
				t.Fatalf("terminal %d: keying %s for %s, want %s", i, k, OpNames[op], keyingTimes[op])
			}
			if th := term.Think(op); th < 0 || th > 10*thinkMeans[op] {
				t.Fatalf("think %s for %s", th, OpNames[op])
			}
		}
	}
	var lo, hi int
	for _, r := range ramps {
		if r < meanCycle/2 {
			lo++
		} else {
			hi++
		}
	}
	if lo < 70 || hi < 70 {
		t.Errorf("ramps not spread over the cycle: %d in the first half, %d in the second", lo, hi)
	}

	cfg.WaitScale = 0
	term := newTerminal(cfg, 3)
	for range 100 {
		op, k := term.Next()
		if th := term.Think(op); k != 0 || th != 0 {
			t.Fatalf("wait scale 0: keying %s, think %s", k, th)
		}
	}
}

// TestNURandRanges: NURand stays in [x, y] for each field and, with A and
// C, is non-uniform: the most frequent values are drawn far more often
// than the average.
func TestNURandRanges(t *testing.T) {
	r := NewRand(3, streamRun, 0)
	k := Constants{CLast: 100, CID: 500, Item: 4000}
	cases := []struct {
		name   string
		lo, hi int
		draw   func() int
	}{
		{"c_last", 0, 999, func() int { return r.NURand(aLast, 0, 999, k.CLast) }},
		{"c_id", 1, CustomersPerDistrict, func() int { return r.CustomerID(k) }},
		{"ol_i_id", 1, Items, func() int { return r.ItemID(k) }},
	}
	for _, tc := range cases {
		count := map[int]int{}
		const n = 300000
		for range n {
			v := tc.draw()
			if v < tc.lo || v > tc.hi {
				t.Fatalf("%s: %d outside [%d, %d]", tc.name, v, tc.lo, tc.hi)
			}
			count[v]++
		}
		top := 0
		for _, c := range count {
			top = max(top, c)
		}
		mean := float64(n) / float64(tc.hi-tc.lo+1)
		if float64(top) < 2*mean {
			t.Errorf("%s: most frequent value drawn %d times, mean %.1f: not non-uniform", tc.name, top, mean)
		}
	}
	for range 10000 {
		name := r.CustomerLast(k)
		if len(name) < 9 || len(name) > 15 {
			t.Fatalf("last name %q", name)
		}
	}
}

// TestNURandCDelta: ValidDelta follows TPC-C 2.1.6.1, and RunConstants
// obeys it for every one of the 256 C-Load values of C_LAST.
func TestNURandCDelta(t *testing.T) {
	for _, tc := range []struct {
		load, run int
		ok        bool
	}{
		{0, 64, false}, {0, 65, true}, {0, 96, false}, {0, 112, false}, {0, 119, true}, {0, 120, false},
		{200, 135, true}, {200, 104, false}, {200, 88, false}, {200, 81, true}, {200, 80, false}, {200, 255, false},
		{100, 100, false},
	} {
		if got := ValidDelta(tc.load, tc.run); got != tc.ok {
			t.Errorf("ValidDelta(%d, %d) = %v, want %v", tc.load, tc.run, got, tc.ok)
		}
	}
	r := NewRand(5, streamRun, 0)
	for cLoad := 0; cLoad <= aLast; cLoad++ {
		load := Constants{CLast: cLoad, CID: 7, Item: 9}
		seen := map[int]bool{}
		for range 50 {
			run := RunConstants(load, r)
			if !ValidDelta(cLoad, run.CLast) || run.CLast < 0 || run.CLast > aLast {
				t.Fatalf("C-Load %d: C-Run %d breaks the C-delta rule", cLoad, run.CLast)
			}
			if run.CID < 0 || run.CID > aCID || run.Item < 0 || run.Item > aItem {
				t.Fatalf("run constants %+v out of range", run)
			}
			seen[run.CLast] = true
		}
		if len(seen) < 10 {
			t.Errorf("C-Load %d: only %d distinct C-Run values in 50 draws", cLoad, len(seen))
		}
	}
}

// TestInputShares draws 100,000 inputs of each transaction with a fixed
// seed and checks the shares TPC-C 2.4.1, 2.5.1 and 2.6.1 prescribe (the
// audit bounds of 9.2).
func TestInputShares(t *testing.T) {
	k := Constants{CLast: 30, CID: 259, Item: 7911}
	const n = 100000
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(b) }
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s: %.3f %%, want %.2f ±%.2f", what, got, want, tol)
		}
	}

	for _, W := range []int{1, 4} {
		r := NewRand(11, streamTerminal, W)
		home := min(2, W)
		var rollbacks, lines, remote int
		var olCnt [16]int
		for range n {
			in := genNewOrder(r, k, home, W)
			if in.w != home || in.d < 1 || in.d > 10 || in.c < 1 || in.c > CustomersPerDistrict {
				t.Fatalf("new_order input %+v", in)
			}
			olCnt[len(in.lines)]++
			for i, l := range in.lines {
				if l.qty < 1 || l.qty > 10 || l.supplyW < 1 || l.supplyW > W {
					t.Fatalf("line %+v", l)
				}
				if l.item == Items+1 && (!in.rollback || i != len(in.lines)-1) {
					t.Fatalf("unused item on line %d of %+v", i, in)
				}
				if l.item < 1 || (l.item > Items && !in.rollback) {
					t.Fatalf("item %d", l.item)
				}
				if i > 0 && l.item < in.lines[i-1].item {
					t.Fatalf("lines not ordered by item: %+v", in.lines)
				}
			}
			if in.rollback {
				rollbacks++
				if in.lines[len(in.lines)-1].item != Items+1 {
					t.Fatalf("rollback without the unused item: %+v", in)
				}
			}
			lines += len(in.lines)
			remote += in.remoteLines()
		}
		near("new_order rollbacks", pct(rollbacks, n), 1, 0.2)
		if avg := float64(lines) / n; avg < 9.9 || avg > 10.1 {
			t.Errorf("W=%d: %.3f lines per order, want 10", W, avg)
		}
		for c := 5; c <= 15; c++ {
			near(fmt.Sprintf("W=%d ol_cnt %d", W, c), pct(olCnt[c], n), 100.0/11, 0.5)
		}
		if W == 1 {
			if remote != 0 {
				t.Errorf("W=1: %d remote lines", remote)
			}
		} else {
			near("remote order lines", pct(remote, lines), 1, 0.1)
		}

		var remotePay, byName int
		for range n {
			in := genPayment(r, k, home, W)
			if in.amount < 100 || in.amount > 500000 || in.d < 1 || in.d > 10 || in.cd < 1 || in.cd > 10 {
				t.Fatalf("payment input %+v", in)
			}
			if in.cw != in.w {
				remotePay++
				if in.cw < 1 || in.cw > W {
					t.Fatalf("payment input %+v", in)
				}
			} else if in.cd != in.d {
				t.Fatalf("home payment of another district: %+v", in)
			}
			if in.byName {
				byName++
				if in.last == "" || in.c != 0 {
					t.Fatalf("payment input %+v", in)
				}
			} else if in.c < 1 || in.c > CustomersPerDistrict {
				t.Fatalf("payment input %+v", in)
			}
		}
		if W == 1 {
			if remotePay != 0 {
				t.Errorf("W=1: %d remote payments", remotePay)
			}
		} else {
			near("remote payments", pct(remotePay, n), 15, 1)
		}
		near("payments by last name", pct(byName, n), 60, 1)

		byName = 0
		for range n {
			in := genOrderStatus(r, k, 2)
			if in.byName {
				byName++
			}
		}
		near("order_status by last name", pct(byName, n), 60, 1)

		var carriers, thresholds [21]int
		for range n {
			in := genDelivery(r, 2)
			carriers[in.carrier]++
			sl := genStockLevel(r, 2, 7)
			if sl.w != 2 || sl.d != 7 {
				t.Fatalf("stock_level input %+v", sl)
			}
			thresholds[sl.threshold]++
		}
		for v := range 21 {
			if (v >= 1 && v <= 10) != (carriers[v] > 0) {
				t.Errorf("carrier %d drawn %d times", v, carriers[v])
			}
			if (v >= 10 && v <= 20) != (thresholds[v] > 0) {
				t.Errorf("threshold %d drawn %d times", v, thresholds[v])
			}
		}
	}
}

// TestInputOtherWarehouse: a remote warehouse is uniform over the others.
func TestInputOtherWarehouse(t *testing.T) {
	r := NewRand(1, streamRun, 1)
	count := map[int]int{}
	for range 40000 {
		count[otherWarehouse(r, 3, 5)]++
	}
	if count[3] != 0 || len(count) != 4 {
		t.Fatalf("other warehouses of 3 in 5: %v", count)
	}
	for w, c := range count {
		if c < 9500 || c > 10500 {
			t.Errorf("warehouse %d drawn %d of 40000 times", w, c)
		}
	}
}
