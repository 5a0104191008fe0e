package dialect

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// RowWriter encodes rows for LoadData: fields separated by a tab, rows
// ended by a newline, backslash, tab, newline, carriage return and NUL
// escaped as \\, \t, \n, \r and \0, NULL written \N (the escapes LOAD
// DATA ... FIELDS ESCAPED BY '\\' reads back; MySQL reference manual, LOAD
// DATA statement). A RowSource calls its field methods in column order,
// then EndRow.
type RowWriter struct {
	buf   []byte
	field int   // fields of the current row so far
	rows  int64 // rows ended
	start int   // where the field of BeginField starts
}

// Rows returns the rows ended so far.
func (w *RowWriter) Rows() int64 { return w.rows }

// Bytes returns the encoded rows (for tests and sizing); it is valid until
// the next call of a writer method.
func (w *RowWriter) Bytes() []byte { return w.buf }

// Reset empties the writer.
func (w *RowWriter) Reset() { w.buf, w.field, w.rows = w.buf[:0], 0, 0 }

func (w *RowWriter) sep() {
	if w.field > 0 {
		w.buf = append(w.buf, '\t')
	}
	w.field++
}

// Int writes an integer field.
func (w *RowWriter) Int(n int64) {
	w.sep()
	w.buf = strconv.AppendInt(w.buf, n, 10)
}

// Null writes a NULL field.
func (w *RowWriter) Null() {
	w.sep()
	w.buf = append(w.buf, '\\', 'N')
}

// Str writes a string field, escaped. The bytes before the first one to
// escape (all of them, for the generated strings of a load) are copied
// at once.
func (w *RowWriter) Str(s string) {
	w.sep()
	for i := 0; i < len(s); i++ {
		if escapes[s[i]] {
			w.buf = append(w.buf, s[:i]...)
			for ; i < len(s); i++ {
				w.buf = appendEscaped(w.buf, s[i])
			}
			return
		}
	}
	w.buf = append(w.buf, s...)
}

// BeginField starts a field whose bytes the caller appends to the returned
// buffer, then hands back to EndField: so a generator writes its value in
// place, without a string. EndField escapes what needs it.
func (w *RowWriter) BeginField() []byte {
	w.sep()
	w.start = len(w.buf)
	return w.buf
}

// EndField ends the field BeginField began; buf is BeginField's buffer
// with the field's bytes appended.
func (w *RowWriter) EndField(buf []byte) {
	for i, c := range buf[w.start:] {
		if escapes[c] {
			i += w.start
			raw := string(buf[i:])
			buf = buf[:i]
			for j := 0; j < len(raw); j++ {
				buf = appendEscaped(buf, raw[j])
			}
			break
		}
	}
	w.buf = buf
}

// EndRow ends the current row.
func (w *RowWriter) EndRow() {
	w.buf = append(w.buf, '\n')
	w.field = 0
	w.rows++
}

// Value writes one value of a type BulkInsert binds: nil (NULL), the
// integer types, float32/64, bool (1/0), string, []byte, time.Time (UTC,
// "2006-01-02 15:04:05" with microseconds when it has them, as
// go-sql-driver sends a time with loc=UTC). Another type, a NaN or an
// infinity is an error.
func (w *RowWriter) Value(v any) error {
	switch x := v.(type) {
	case nil:
		w.Null()
	case int:
		w.Int(int64(x))
	case int64:
		w.Int(x)
	case int32:
		w.Int(int64(x))
	case int16:
		w.Int(int64(x))
	case int8:
		w.Int(int64(x))
	case uint8:
		w.Int(int64(x))
	case uint16:
		w.Int(int64(x))
	case uint32:
		w.Int(int64(x))
	case uint64:
		w.sep()
		w.buf = strconv.AppendUint(w.buf, x, 10)
	case bool:
		w.sep()
		if x {
			w.buf = append(w.buf, '1')
		} else {
			w.buf = append(w.buf, '0')
		}
	case float64:
		return w.float(x, 64)
	case float32:
		return w.float(float64(x), 32)
	case string:
		w.Str(x)
	case []byte:
		if x == nil {
			w.Null()
			return nil
		}
		w.EndField(append(w.BeginField(), x...))
	case time.Time:
		w.sep()
		t := x.UTC()
		if t.Nanosecond() >= 1000 {
			w.buf = t.AppendFormat(w.buf, "2006-01-02 15:04:05.000000")
		} else {
			w.buf = t.AppendFormat(w.buf, time.DateTime)
		}
	default:
		return fmt.Errorf("a value of type %T has no LOAD DATA encoding", v)
	}
	return nil
}

func (w *RowWriter) float(f float64, bits int) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%v has no LOAD DATA encoding", f)
	}
	w.sep()
	w.buf = strconv.AppendFloat(w.buf, f, 'g', -1, bits)
	return nil
}

// escapes marks the bytes appendEscaped escapes.
var escapes = [256]bool{'\\': true, '\t': true, '\n': true, '\r': true, 0: true}

func appendEscaped(buf []byte, c byte) []byte {
	switch c {
	case '\\':
		return append(buf, '\\', '\\')
	case '\t':
		return append(buf, '\\', 't')
	case '\n':
		return append(buf, '\\', 'n')
	case '\r':
		return append(buf, '\\', 'r')
	case 0:
		return append(buf, '\\', '0')
	}
	return append(buf, c)
}

// RowsSource returns a RowSource over rows (BulkInsert's shape): each row
// written with RowWriter.Value. A value of a type Value does not accept
// ends the rows early; Err then returns the error.
func RowsSource(rows [][]any) *SliceSource { return &SliceSource{rows: rows} }

// SliceSource is RowsSource's RowSource.
type SliceSource struct {
	rows [][]any
	next int
	err  error
}

// NextRow writes the next row.
func (s *SliceSource) NextRow(w *RowWriter) bool {
	if s.err != nil || s.next >= len(s.rows) {
		return false
	}
	mark := len(w.buf)
	for _, v := range s.rows[s.next] {
		if err := w.Value(v); err != nil {
			s.err = fmt.Errorf("row %d: %w", s.next, err)
			w.buf, w.field = w.buf[:mark], 0
			return false
		}
	}
	w.EndRow()
	s.next++
	return true
}

// Err returns the error that ended the rows early, if any.
func (s *SliceSource) Err() error { return s.err }

// EncodedSize returns the bytes rows take in RowWriter's encoding (values
// of a type Value does not accept count nothing): the data size an INSERT
// path reports, comparable with LoadData's.
func EncodedSize(rows [][]any) int64 {
	var w RowWriter
	var n int64
	for _, r := range rows {
		for _, v := range r {
			_ = w.Value(v)
		}
		w.EndRow()
		n += int64(len(w.buf))
		w.buf, w.field = w.buf[:0], 0
	}
	return n
}
