// Package flagvalue holds the pflag option types the workload packages
// share, spelled the way the field's tools spell them: sysbench's on/off
// booleans and plain-second durations, enumerations that list their valid
// values, and underscore-tolerant names. It imports nothing from vmbench.
package flagvalue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Name is a flag's name as every vmbench parser reads it, the command
// line's, a campaign file's flags: and an agent's job.json: without
// leading dashes, underscores as dashes (--table_size, table_size and
// table-size are all table-size), as sysbench and go-tpc users type both.
func Name(k string) string { return strings.ReplaceAll(strings.TrimLeft(k, "-"), "_", "-") }

// Normalize is Name as a pflag normalizer: install it with
// FlagSet.SetNormalizeFunc and --table_size sets --table-size.
func Normalize(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(Name(name))
}

// Bool registers an on/off option (sysbench's spelling; true/false, yes/no
// and 1/0 also work) whose bare form means on.
func Bool(fs *pflag.FlagSet, p *bool, name, usage string) {
	f := fs.VarPF(&onOffValue{p}, name, "", usage)
	f.NoOptDefVal = "on"
}

// OnOff returns "on" or "off".
func OnOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

type onOffValue struct{ p *bool }

func (v *onOffValue) String() string {
	if v.p == nil {
		return "off"
	}
	return OnOff(*v.p)
}

func (v *onOffValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "true", "yes", "1":
		*v.p = true
	case "off", "false", "no", "0":
		*v.p = false
	default:
		return fmt.Errorf("%q is not on or off", s)
	}
	return nil
}

func (v *onOffValue) Type() string { return "on|off" }

// Seconds returns a pflag.Value for a duration given as plain seconds
// ("60", "0.5", as sysbench's --time) or as a Go duration ("1m30s").
func Seconds(p *time.Duration) pflag.Value { return &secondsValue{p} }

type secondsValue struct{ p *time.Duration }

func (v *secondsValue) String() string {
	if v.p == nil || *v.p == 0 {
		return "0"
	}
	return v.p.String()
}

func (v *secondsValue) Set(s string) error {
	d, err := ParseSeconds(s)
	if err != nil {
		return err
	}
	*v.p = d
	return nil
}

func (v *secondsValue) Type() string { return "seconds" }

// Recorded is the duration as Go writes it ("0s", "1m30s"), the form
// Results and campaign.yaml record (workload.RecordedValue's method;
// flagvalue imports nothing from vmbench). It parses back to the same.
func (v *secondsValue) Recorded() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

// ParseSeconds parses a duration written as plain seconds ("60", "0.5", as
// sysbench's --time) or as a Go duration ("90s", "1m30s"). The error quotes
// s and shows both valid forms.
func ParseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f > float64(1<<63-1)/float64(time.Second) || f < -float64(1<<63-1)/float64(time.Second) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		if f > 0 && f*float64(time.Second) < 1 {
			return 0, fmt.Errorf("%q is below a nanosecond (0 is written 0)", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (seconds like 60, or 90s, 1m30s)", s)
	}
	return d, nil
}

// Enum returns a pflag.Value accepting one of valid (case-insensitive);
// the error lists the valid values.
func Enum[T ~string](p *T, valid []T) pflag.Value { return &enumValue[T]{p, valid} }

type enumValue[T ~string] struct {
	p     *T
	valid []T
}

func (v *enumValue[T]) String() string {
	if v.p == nil {
		return ""
	}
	return string(*v.p)
}

func (v *enumValue[T]) Set(s string) error {
	t := T(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(v.valid, t) {
		names := make([]string, len(v.valid))
		for i, x := range v.valid {
			names[i] = string(x)
		}
		return fmt.Errorf("%q is not valid (%s)", s, strings.Join(names, ", "))
	}
	*v.p = t
	return nil
}

func (v *enumValue[T]) Type() string { return "string" }

// Parsed returns a pflag.Value that sets *p to parse(s); typ is what help
// shows as the value's kind (e.g. "mysql|sqlserver|sqlite").
func Parsed[T any](p *T, parse func(string) (T, error), typ string) pflag.Value {
	return &parsedValue[T]{p, parse, typ}
}

type parsedValue[T any] struct {
	p     *T
	parse func(string) (T, error)
	typ   string
}

func (v *parsedValue[T]) String() string {
	if v.p == nil {
		return ""
	}
	return fmt.Sprint(*v.p)
}

func (v *parsedValue[T]) Set(s string) error {
	t, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = t
	return nil
}

func (v *parsedValue[T]) Type() string { return v.typ }

// ParsePort reads a TCP port given on the command line or in the
// environment: 1..65535. (0, which the connection configs take for "the
// driver's default port", is refused when given: leave the option out for
// the default.)
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("%q is not a port (1..65535; leave the option out for the default)", s)
	}
	return n, nil
}
