package dialect

import (
	"slices"
	"testing"
)

func TestDriverFlags(t *testing.T) {
	flags := []string{"db-driver", "mysql-host", "mysql-db", "sqlite-path"}
	for _, tc := range []struct {
		d     Driver
		given []string
		want  string // "" for none
	}{
		{MySQL, nil, ""},
		{SQLite, []string{"db-driver"}, ""},
		{MySQL, []string{"mysql-host", "mysql-db"}, ""},
		{SQLite, []string{"sqlite-path"}, ""},
		{MySQL, []string{"sqlite-path"}, "--sqlite-path applies to --db-driver sqlite; add --db-driver sqlite"},
		{SQLServer, []string{"sqlite-path"}, "--sqlite-path applies to --db-driver sqlite; add --db-driver sqlite"},
		{SQLite, []string{"sqlite-path", "mysql-host", "mysql-db"}, "--mysql-host applies to --db-driver mysql, not sqlite; drop it, or give --db-driver mysql\n" +
			"--mysql-db applies to --db-driver mysql, not sqlite; drop it, or give --db-driver mysql"},
	} {
		err := DriverFlags(tc.d, func(f string) bool { return slices.Contains(tc.given, f) }, flags, "mysql")
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want {
				t.Errorf("%s %v: %q, want %q", tc.d, tc.given, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%s %v: no error, want %q", tc.d, tc.given, tc.want)
		}
	}
}
