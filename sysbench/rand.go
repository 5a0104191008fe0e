package sysbench

import (
	"math"
	"math/rand/v2"
	"time"
)

// Rand draws the random numbers of one thread (or one table at prepare):
// row ids by --rand-type, table numbers uniformly, and the digit strings of
// c and pad. It is not safe for concurrent use; each thread owns one.
//
// Distributions follow sysbench's src/sb_rand.c in behaviour (the code is
// vmbench's own):
//
//   - uniform: every value of [a, b] equally likely.
//   - gaussian: the mean of --rand-spec-iter uniform draws over [a, b], a
//     bell centred in the middle of the range (central limit).
//   - special (1.0.20): with probability --rand-spec-res percent a uniform
//     draw from a hot window of --rand-spec-pct percent of the range, centred
//     in the middle; otherwise the gaussian draw. Default: 75% of draws hit
//     1% of the rows.
//   - pareto: a + n*U^(ln h/ln(1-h)) with h = --rand-pareto-h, so low values
//     are hot (h=0.2: 80% of draws in the lowest 20%).
//   - zipfian (master): rank k of [1, n] with probability proportional to
//     1/k^theta (theta = --rand-zipfian-exp), drawn by rejection-inversion
//     (Hörmann and Derflinger 1996); value a+k-1, so low values are hot.
type Rand struct {
	r    *rand.Rand
	o    RandOptions
	zipf zipfian // cached sampler for the last n
}

// NewRand returns the generator of stream (a thread or a table number) for
// seed. Equal (seed, stream) give equal sequences; different streams are
// independent.
func NewRand(o RandOptions, seed uint64, stream uint64) *Rand {
	s1 := splitmix(seed ^ 0x5bf03635f0b2a1c7)
	s2 := splitmix(s1 ^ splitmix(stream+0x9e3779b97f4a7c15))
	return &Rand{r: rand.New(rand.NewPCG(s1, s2)), o: o}
}

// seed returns the seed a run uses: o.Seed, or one from the clock when it
// is 0 (sysbench --rand-seed=0).
func (o RandOptions) seed() uint64 {
	if o.Seed != 0 {
		return uint64(o.Seed)
	}
	return uint64(time.Now().UnixNano())
}

// splitmix is the SplitMix64 finaliser, used to spread seeds over the state.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Uniform returns a value of [a, b] with equal probability (a <= b).
func (r *Rand) Uniform(a, b int64) int64 {
	if b <= a {
		return a
	}
	return a + r.r.Int64N(b-a+1)
}

// Default returns a value of [a, b] by --rand-type (sysbench
// rand.default), which chooses row ids and k values.
func (r *Rand) Default(a, b int64) int64 {
	if b <= a {
		return a
	}
	switch r.o.Type {
	case RandGaussian:
		return r.gaussian(a, b)
	case RandSpecial:
		return r.special(a, b)
	case RandPareto:
		return r.pareto(a, b)
	case RandZipfian:
		return r.zipfian(a, b)
	default:
		return r.Uniform(a, b)
	}
}

// gaussian is the mean of SpecIter uniform draws, scaled to [a, b].
func (r *Rand) gaussian(a, b int64) int64 {
	iter := max(r.o.SpecIter, 1)
	var sum float64
	for range iter {
		sum += r.r.Float64()
	}
	n := float64(b - a + 1)
	return min(a+int64(n*sum/float64(iter)), b)
}

// special draws from the hot middle window with probability SpecRes%, and
// from gaussian otherwise.
func (r *Rand) special(a, b int64) int64 {
	if r.r.Float64()*100 >= r.o.SpecRes {
		return r.gaussian(a, b)
	}
	n := b - a + 1
	w := max(int64(math.Round(float64(n)*r.o.SpecPct/100)), 1)
	w = min(w, n)
	lo := a + (n-w)/2
	return lo + r.r.Int64N(w)
}

// pareto is a + n*U^(ln h / ln(1-h)).
func (r *Rand) pareto(a, b int64) int64 {
	h := r.o.ParetoH
	pow := math.Log(h) / math.Log(1-h)
	n := float64(b - a + 1)
	return min(a+int64(n*math.Pow(r.r.Float64(), pow)), b)
}

func (r *Rand) zipfian(a, b int64) int64 {
	n := b - a + 1
	if r.zipf.n != n || r.zipf.theta != r.o.ZipfianExp {
		r.zipf = newZipfian(n, r.o.ZipfianExp)
	}
	return a + r.zipf.sample(r.r) - 1
}

// zipfian samples rank k in [1, n] with P(k) proportional to k^-theta by
// rejection-inversion: invert the integral H of the hat function h(x) =
// x^-theta over [1.5, n+0.5] and accept k = round(x) when x falls under the
// histogram of the target, which almost always happens at the first try.
type zipfian struct {
	n       int64
	theta   float64
	hX1     float64 // H(1.5) - 1, the start of the sampled integral
	hN      float64 // H(n + 0.5)
	squeeze float64 // values of x close to k are accepted without the test
}

func newZipfian(n int64, theta float64) zipfian {
	z := zipfian{n: n, theta: theta}
	z.hX1 = z.bigH(1.5) - 1
	z.hN = z.bigH(float64(n) + 0.5)
	z.squeeze = 2 - z.bigHInv(z.bigH(2.5)-z.h(2))
	return z
}

// h is the hat density x^-theta.
func (z zipfian) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

// bigH is an antiderivative of h: (x^(1-theta) - 1)/(1-theta), or ln x
// when theta = 1, written to stay accurate near theta = 1.
func (z zipfian) bigH(x float64) float64 {
	lx := math.Log(x)
	return expm1Over((1-z.theta)*lx) * lx
}

// bigHInv inverts bigH.
func (z zipfian) bigHInv(y float64) float64 {
	t := y * (1 - z.theta)
	if t < -1 {
		t = -1 // guards rounding at the lower end of the range
	}
	return math.Exp(log1pOver(t) * y)
}

func (z zipfian) sample(r *rand.Rand) int64 {
	if z.n <= 1 {
		return 1
	}
	for {
		u := z.hN + r.Float64()*(z.hX1-z.hN)
		x := z.bigHInv(u)
		k := int64(x + 0.5)
		k = min(max(k, 1), z.n)
		if float64(k)-x <= z.squeeze || u >= z.bigH(float64(k)+0.5)-z.h(float64(k)) {
			return k
		}
	}
}

// expm1Over returns (e^x - 1)/x, 1 at x = 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x/2*(1+x/3)
}

// log1pOver returns ln(1+x)/x, 1 at x = 0.
func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x/3)
}
