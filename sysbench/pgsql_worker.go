package sysbench

import (
	"context"
	"fmt"

	"vmbench/dialect"
)

// A worker's statements on PostgreSQL run through dialect.PGExec, pgx's
// native interface, rather than through database/sql's driver interface:
// the same Bind/Execute of the same named statements, without stdlib's
// conversion of every argument and every column (see dialect.PGExec).

// pgPrepare prepares the workload's statements on the driver connection
// dc natively and keeps their server-side names.
func (w *worker) pgPrepare(ctx context.Context, dc any) error {
	e, ok := dialect.NewPGExec(dc)
	if !ok {
		return fmt.Errorf("the postgres connection is a %T, not pgx's", dc)
	}
	w.pg = e
	w.pgNames = make([][nKinds]string, len(w.s.texts))
	for t := range w.s.texts {
		for _, k := range w.s.kinds {
			name, err := e.Prepare(ctx, w.s.texts[t][k])
			if err != nil {
				return fmt.Errorf("preparing %s: %w", w.s.texts[t][k], err)
			}
			w.pgNames[t][k] = name
		}
	}
	return nil
}

// pgRelease deallocates the statements pgPrepare made (a broken
// connection took them with it).
func (w *worker) pgRelease(ctx context.Context) {
	for t := range w.pgNames {
		for _, k := range w.s.kinds {
			_ = w.pg.Deallocate(ctx, w.s.texts[t][k])
		}
	}
	w.pg, w.pgNames = nil, nil
}

// pgQuery is query on PostgreSQL: the rows are read, not decoded.
func (w *worker) pgQuery(t int, k stmtKind, nargs int) error {
	if _, err := w.pg.Query(w.actx, w.pgNames[t][k], w.args[:nargs]); err != nil {
		return &stmtError{w.s.texts[t][k], err}
	}
	w.n.read++
	return nil
}

// pgExec is exec on PostgreSQL.
func (w *worker) pgExec(t int, k stmtKind, nargs int) error {
	n, err := w.pg.Exec(w.actx, w.pgNames[t][k], w.args[:nargs])
	if err != nil {
		return &stmtError{w.s.texts[t][k], err}
	}
	if n > 0 {
		w.n.write++
	} else {
		w.n.other++
	}
	return nil
}

// pgText is text on PostgreSQL.
func (w *worker) pgText(q string) error {
	if err := w.pg.Simple(w.actx, q); err != nil {
		return &stmtError{q, err}
	}
	w.n.other++
	return nil
}
