package report

import (
	"image/color"
	"math"
	"testing"
)

// lab is c in CIE L*a*b* (D65 white), from sRGB.
func lab(c color.RGBA) [3]float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	x := (0.4124*r + 0.3576*g + 0.1805*b) / 0.95047
	y := 0.2126*r + 0.7152*g + 0.0722*b
	z := (0.0193*r + 0.1192*g + 0.9505*b) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// deltaE2000 is the CIEDE2000 colour difference of two L*a*b* colours
// (Sharma, Wu and Dalal, "The CIEDE2000 Color-Difference Formula", 2005):
// about 2 is just noticeable side by side, 20 and more tell two thin
// lines apart at a glance.
func deltaE2000(p, q [3]float64) float64 {
	rad := math.Pi / 180
	c1, c2 := math.Hypot(p[1], p[2]), math.Hypot(q[1], q[2])
	cm7 := math.Pow((c1+c2)/2, 7)
	g := 0.5 * (1 - math.Sqrt(cm7/(cm7+math.Pow(25, 7))))
	a1, a2 := (1+g)*p[1], (1+g)*q[1]
	c1p, c2p := math.Hypot(a1, p[2]), math.Hypot(a2, q[2])
	hue := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		return math.Mod(math.Atan2(b, a)/rad+360, 360)
	}
	h1, h2 := hue(p[2], a1), hue(q[2], a2)
	dh := 0.0
	if c1p*c2p != 0 {
		dh = h2 - h1
		if dh > 180 {
			dh -= 360
		} else if dh < -180 {
			dh += 360
		}
	}
	dL, dC, dH := q[0]-p[0], c2p-c1p, 2*math.Sqrt(c1p*c2p)*math.Sin(dh/2*rad)
	lm, cmp := (p[0]+q[0])/2, (c1p+c2p)/2
	hm := h1 + h2
	if c1p*c2p != 0 {
		switch {
		case math.Abs(h1-h2) <= 180:
		case hm < 360:
			hm += 360
		default:
			hm -= 360
		}
		hm /= 2
	}
	t := 1 - 0.17*math.Cos((hm-30)*rad) + 0.24*math.Cos(2*hm*rad) + 0.32*math.Cos((3*hm+6)*rad) - 0.2*math.Cos((4*hm-63)*rad)
	cp7 := math.Pow(cmp, 7)
	rt := -2 * math.Sqrt(cp7/(cp7+math.Pow(25, 7))) * math.Sin(60*math.Exp(-math.Pow((hm-275)/25, 2))*rad)
	sl := 1 + 0.015*(lm-50)*(lm-50)/math.Sqrt(20+(lm-50)*(lm-50))
	sc, sh := 1+0.045*cmp, 1+0.015*cmp*t
	return math.Sqrt(math.Pow(dL/sl, 2) + math.Pow(dC/sc, 2) + math.Pow(dH/sh, 2) + rt*(dC/sc)*(dH/sh))
}

func TestDeltaE2000(t *testing.T) {
	// Sharma, Wu and Dalal's test data, pairs 1, 7 and 17.
	for _, c := range []struct {
		p, q [3]float64
		want float64
	}{
		{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425},
		{[3]float64{50, 0, 0}, [3]float64{50, -1, 2}, 2.3669},
		{[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492},
	} {
		if got := deltaE2000(c.p, c.q); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("ΔE2000(%v, %v) = %.4f, want %.4f", c.p, c.q, got, c.want)
		}
	}
}

// minLineDistance is the CIEDE2000 distance a chart's lines keep at
// least: two of the palette's colours, or one and the aggregate's, are
// told apart as thin lines.
const minLineDistance = 25

// TestPaletteKeepsLinesApart: any two of the palette's colours, and each
// and the aggregate's near-black, differ by minLineDistance or more (8
// VMs' lines), and a LineChart of 16 dashes the second 8, so that no two
// of 16 VMs' lines look alike.
func TestPaletteKeepsLinesApart(t *testing.T) {
	all := append([]color.RGBA{aggregateColor}, palette...)
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if d := deltaE2000(lab(all[i]), lab(all[j])); d < minLineDistance {
				t.Errorf("colours %v and %v differ by ΔE2000 %.1f, want %d or more", all[i], all[j], d, minLineDistance)
			}
		}
	}
	if len(palette) < 8 {
		t.Errorf("%d colours: 8 VMs would share one", len(palette))
	}
}
