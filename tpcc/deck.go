package tpcc

import (
	"math"
	"time"
)

// deckCards is the mix of TPC-C 5.2.4.2 as a deck of 23 cards: 10
// New-Order, 10 Payment and one each of Order-Status, Delivery and
// Stock-Level (New-Order 43.5 %, Payment 43.5 %, the others 4.3 %, above
// the minimums of 5.2.3).
var deckCards = [...]int{
	opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder, opNewOrder,
	opPayment, opPayment, opPayment, opPayment, opPayment, opPayment, opPayment, opPayment, opPayment, opPayment,
	opOrderStatus, opDelivery, opStockLevel,
}

// deckSize is the number of cards, 23.
const deckSize = len(deckCards)

// deck is one terminal's deck: it deals every card once, then is shuffled
// again (Fisher-Yates, with the terminal's Rand), so every 23 consecutive
// draws from the start hold the exact mix.
type deck struct {
	cards [deckSize]int
	next  int // index of the next card; deckSize: shuffle first
}

func newDeck() deck { return deck{cards: deckCards, next: deckSize} }

// draw returns the next card, shuffling a fresh round first.
func (d *deck) draw(r *Rand) int {
	if d.next == deckSize {
		for i := deckSize - 1; i > 0; i-- {
			j := r.Int(0, i)
			d.cards[i], d.cards[j] = d.cards[j], d.cards[i]
		}
		d.next = 0
	}
	c := d.cards[d.next]
	d.next++
	return c
}

// keyingTimes are the constant keying times of TPC-C 5.2.5.7, by op.
var keyingTimes = [numOps]time.Duration{
	opNewOrder: 18 * time.Second, opPayment: 3 * time.Second,
	opOrderStatus: 2 * time.Second, opDelivery: 2 * time.Second, opStockLevel: 2 * time.Second,
}

// thinkMeans are the mean think times of TPC-C 5.2.5.4, by op.
var thinkMeans = [numOps]time.Duration{
	opNewOrder: 12 * time.Second, opPayment: 12 * time.Second,
	opOrderStatus: 10 * time.Second, opDelivery: 5 * time.Second, opStockLevel: 5 * time.Second,
}

// thinkCap is the truncation of the think-time distribution, in means
// (5.2.5.4 allows truncating at ten times the mean).
const thinkCap = 10

// meanCycle is the mean keying plus think time of one card over the deck:
// 476 s / 23 = 20.7 s. A terminal spreads its first submission over one
// such cycle (see terminal.Next).
var meanCycle = func() time.Duration {
	var sum time.Duration
	for _, op := range deckCards {
		sum += keyingTimes[op] + thinkMeans[op]
	}
	return sum / time.Duration(deckSize)
}()

// scaled returns d times f (Config.WaitScale).
func scaled(d time.Duration, f float64) time.Duration {
	if f == 0 {
		return 0
	}
	return time.Duration(float64(d) * f)
}

// keyingTime returns op's keying time times scale.
func keyingTime(op int, scale float64) time.Duration { return scaled(keyingTimes[op], scale) }

// thinkTime draws op's think time: -ln(U)·μ with U uniform in (0, 1],
// truncated at 10·μ, times scale. With scale 0 it draws nothing.
func thinkTime(r *Rand, op int, scale float64) time.Duration {
	if scale == 0 {
		return 0
	}
	x := min(-math.Log(1-r.Float()), thinkCap)
	return time.Duration(x * float64(thinkMeans[op]) * scale)
}
