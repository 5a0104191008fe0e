package sysbench

import (
	"strconv"
	"strings"

	"vmbench/dialect"
)

// stmtKind is one prepared statement shape of the sbtest workloads
// (sysbench 1.0 oltp_common.lua prepares one per table and kind).
type stmtKind int

const (
	kPoint          stmtKind = iota // SELECT c FROM t WHERE id=?
	kSimpleRange                    // SELECT c FROM t WHERE id BETWEEN ? AND ?
	kSumRange                       // SELECT SUM(k) FROM t WHERE id BETWEEN ? AND ?
	kOrderRange                     // SELECT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c
	kDistinctRange                  // SELECT DISTINCT c FROM t WHERE id BETWEEN ? AND ? ORDER BY c
	kIndexUpdate                    // UPDATE t SET k=k+1 WHERE id=?
	kNonIndexUpdate                 // UPDATE t SET c=? WHERE id=?
	kDelete                         // DELETE FROM t WHERE id=?
	kInsert                         // INSERT INTO t (id, k, c, pad) VALUES (?, ?, ?, ?)
	kInsertAuto                     // INSERT INTO t (k, c, pad) VALUES (?, ?, ?)
	nKinds
)

var kindNames = [nKinds]string{"point select", "simple range", "sum range", "order range", "distinct range",
	"index update", "non-index update", "delete", "insert", "insert"}

func (k stmtKind) String() string { return kindNames[k] }

// reads reports whether k returns a result set (a "read" query).
func (k stmtKind) reads() bool { return k <= kDistinctRange }

// stmtText returns the statement text of kind k on table, in d's dialect.
func stmtText(d dialect.Dialect, k stmtKind, table string) string {
	t := d.QuoteIdent(table)
	p := func(n int) string { return d.Placeholder(n) }
	between := " WHERE id BETWEEN " + p(1) + " AND " + p(2)
	switch k {
	case kPoint:
		return "SELECT c FROM " + t + " WHERE id=" + p(1)
	case kSimpleRange:
		return "SELECT c FROM " + t + between
	case kSumRange:
		return "SELECT SUM(k) FROM " + t + between
	case kOrderRange:
		return "SELECT c FROM " + t + between + " ORDER BY c"
	case kDistinctRange:
		return "SELECT DISTINCT c FROM " + t + between + " ORDER BY c"
	case kIndexUpdate:
		return "UPDATE " + t + " SET k=k+1 WHERE id=" + p(1)
	case kNonIndexUpdate:
		return "UPDATE " + t + " SET c=" + p(1) + " WHERE id=" + p(2)
	case kDelete:
		return "DELETE FROM " + t + " WHERE id=" + p(1)
	case kInsert:
		return "INSERT INTO " + t + " (id, k, c, pad) VALUES (" + placeholders(d, 4) + ")"
	case kInsertAuto:
		return "INSERT INTO " + t + " (k, c, pad) VALUES (" + placeholders(d, 3) + ")"
	default:
		panic("sysbench: unknown statement kind " + strconv.Itoa(int(k)))
	}
}

func placeholders(d dialect.Dialect, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = d.Placeholder(i + 1)
	}
	return strings.Join(ps, ", ")
}

// group is one statement group of an event: count statements of one shape
// on one table chosen uniformly for the whole group (sysbench picks the
// table per group, the row id per statement).
type group int

const (
	gPoint group = iota
	gSimpleRange
	gSumRange
	gOrderRange
	gDistinctRange
	gIndexUpdate
	gNonIndexUpdate
	gDeleteInsert // DELETE then INSERT of the same id, new k, c and pad
	gDelete       // a lone DELETE (oltp_delete)
	gInsert       // a lone INSERT (oltp_insert)
)

// step is a group and how many statements (or delete/insert pairs) it runs.
type step struct {
	g     group
	count int
}

// mix is the statement sequence of one event of a workload.
type mix struct {
	trx   bool // BEGIN ... COMMIT around the steps
	steps []step
}

// mixFor returns the event of cfg.Workload with cfg's counts, as the
// sysbench 1.0 scripts run it:
//
//   - oltp_read_write: BEGIN, point selects, simple, sum, order and distinct
//     ranges (unless --range-selects=off), index updates, non-index
//     updates, delete/insert pairs, COMMIT (default 20 statements: 14 reads,
//     4 writes, 2 other).
//   - oltp_read_only: the reads of oltp_read_write inside BEGIN/COMMIT.
//   - oltp_write_only: the writes of oltp_read_write inside BEGIN/COMMIT.
//   - oltp_point_select: one point select (the script forces
//     point_selects=1), no transaction.
//   - oltp_update_index, oltp_update_non_index: --index-updates or
//     --non-index-updates UPDATEs, no transaction.
//   - oltp_insert: one INSERT; oltp_delete: one DELETE; no transaction.
//
// --skip-trx drops BEGIN/COMMIT. Groups with a count of 0 are left out.
func mixFor(cfg Config) mix {
	reads := []step{{gPoint, cfg.PointSelects}}
	if cfg.RangeSelects {
		reads = append(reads, step{gSimpleRange, cfg.SimpleRanges}, step{gSumRange, cfg.SumRanges},
			step{gOrderRange, cfg.OrderRanges}, step{gDistinctRange, cfg.DistinctRanges})
	}
	writes := []step{{gIndexUpdate, cfg.IndexUpdates}, {gNonIndexUpdate, cfg.NonIndexUpdates}, {gDeleteInsert, cfg.DeleteInserts}}
	var m mix
	switch cfg.Workload {
	case ReadWrite:
		m = mix{trx: true, steps: append(reads, writes...)}
	case ReadOnly:
		m = mix{trx: true, steps: reads}
	case WriteOnly:
		m = mix{trx: true, steps: writes}
	case PointSelect:
		m = mix{steps: []step{{gPoint, 1}}}
	case UpdateIndex:
		m = mix{steps: []step{{gIndexUpdate, cfg.IndexUpdates}}}
	case UpdateNonIndex:
		m = mix{steps: []step{{gNonIndexUpdate, cfg.NonIndexUpdates}}}
	case Insert:
		m = mix{steps: []step{{gInsert, 1}}}
	case Delete:
		m = mix{steps: []step{{gDelete, 1}}}
	}
	if cfg.SkipTrx {
		m.trx = false
	}
	kept := m.steps[:0:0]
	for _, s := range m.steps {
		if s.count > 0 {
			kept = append(kept, s)
		}
	}
	m.steps = kept
	return m
}

// kinds returns which statement kinds m executes, so that only those are
// prepared. autoInc selects the INSERT shape of oltp_insert.
func (m mix) kinds(autoInc bool) []stmtKind {
	var used [nKinds]bool
	for _, s := range m.steps {
		switch s.g {
		case gPoint:
			used[kPoint] = true
		case gSimpleRange:
			used[kSimpleRange] = true
		case gSumRange:
			used[kSumRange] = true
		case gOrderRange:
			used[kOrderRange] = true
		case gDistinctRange:
			used[kDistinctRange] = true
		case gIndexUpdate:
			used[kIndexUpdate] = true
		case gNonIndexUpdate:
			used[kNonIndexUpdate] = true
		case gDeleteInsert:
			used[kDelete], used[kInsert] = true, true
		case gDelete:
			used[kDelete] = true
		case gInsert:
			if autoInc {
				used[kInsertAuto] = true
			} else {
				used[kInsert] = true
			}
		}
	}
	var ks []stmtKind
	for k, u := range used {
		if u {
			ks = append(ks, stmtKind(k))
		}
	}
	return ks
}

// statements returns the number of statements one event of m sends when
// nothing fails, BEGIN and COMMIT included.
func (m mix) statements() int {
	n := 0
	if m.trx {
		n = 2
	}
	for _, s := range m.steps {
		if s.g == gDeleteInsert {
			n += 2 * s.count
		} else {
			n += s.count
		}
	}
	return n
}
