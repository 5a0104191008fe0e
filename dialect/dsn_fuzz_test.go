package dialect

import (
	"strings"
	"testing"
)

// dsnShapes build a DSN of each accepted form around a user, a password,
// a host and a tail (port, database, parameters, or anything else). Shape 0
// is the tail alone: any string at all.
var dsnShapes = []func(user, pass, host, tail string) string{
	func(_, _, _, tail string) string { return tail },
	func(u, p, h, tail string) string { return "mysql://" + u + ":" + p + "@" + h + tail },
	func(u, p, h, tail string) string { return "mariadb://" + u + ":" + p + "@" + h + tail },
	func(u, p, h, tail string) string { return u + ":" + p + "@tcp(" + h + ")" + tail },
	func(u, p, h, tail string) string { return u + ":" + p + "@unix(" + h + ")" + tail },
	func(u, p, h, tail string) string { return "sqlserver://" + u + ":" + p + "@" + h + tail },
	func(u, p, h, tail string) string { return "mssql://" + u + ":" + p + "@" + h + tail },
	func(u, p, h, tail string) string {
		return "sqlserver://" + h + "?user+id=" + u + "&password=" + p + tail
	},
	func(_, p, h, tail string) string { return "sqlserver://" + h + "?" + tail + "&Password=" + p },
}

// fuzzPassword makes a password that no error text or other part of a DSN
// holds by chance: "pw~", the fuzzer's bytes mapped onto characters that
// mean nothing in any DSN form, "~pw".
func fuzzPassword(b string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._"
	var p strings.Builder
	p.WriteString("pw~")
	for i := range len(b) {
		p.WriteByte(alphabet[int(b[i])%len(alphabet)])
	}
	p.WriteString("~pw")
	return p.String()
}

// onePart drops from s the characters that end a user or host in some DSN
// form: / ? # ( ).
func onePart(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("/?#()", r) {
			return -1
		}
		return r
	}, s)
}

// FuzzParseDSN feeds DSNs of every accepted form, with arbitrary users,
// hosts and tails, to ParseDSN: it never panics, its error never holds the
// password, and the String of what it parses holds no password.
func FuzzParseDSN(f *testing.F) {
	for _, s := range [][5]string{
		{"0", "", "", "", "mysql://root:secret@127.0.0.1:3306/sbtest?tls=false"},
		{"0", "", "", "", "root:secret@tcp(127.0.0.1:3306)/sbtest?parseTime=true"},
		{"0", "", "", "", "sqlserver://sa:secret@db1:1433?database=tpcc&encrypt=disable"},
		{"0", "", "", "", "sqlserver://sa:secret@db1/SQLEXPRESS?user%20id=x&password=y"},
		{"0", "", "", "", "sqlite:///var/tmp/x.db"},
		{"0", "", "", "", "file:rel/x.db?_pragma=busy_timeout(5000)"},
		{"1", "root", "secret", "127.0.0.1", ":3306/db?socket=/run/mysqld.sock"},
		{"1", "ro:ot", "x", "h@st", ":99999/db%zz?a=%zz"},
		{"2", "u", "p", "[::1]", ":3306/"},
		{"3", "root", "secret", "127.0.0.1:3306", "/sbtest?timeout=1s&x=%"},
		{"3", "root", "secret", "h", "sbtest"},
		{"3", "root", "secret", "h:3306", "/db?x=http://y"}, // "://" in a value is no URL
		{"4", "root", "", "/run/mysqld/mysqld.sock", "/db"},
		{"5", "sa", "secret", "db1", ":1433?database=tpcc&app+name=x"},
		{"5", "sa", "secret", "db1", "/INST/extra?database=a;b"},
		{"6", "sa", "secret", "db1", ":port"},
		{"7", "sa", "secret", "db1:1433", "&database=x"},
		{"8", "sa", "secret", "db1", "database=x"},
	} {
		f.Add(s[0][0]-'0', s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, shape byte, user, pw, host, tail string) {
		// A user or host that ends the part it stands in moves the password
		// out of the password's place (into a path, say): keep them to one
		// part each.
		user, host = onePart(user), onePart(host)
		pass := fuzzPassword(pw)
		dsn := dsnShapes[int(shape)%len(dsnShapes)](user, pass, host, tail)
		c, err := ParseDSN(dsn)
		if strings.Count(dsn, pass) != 1 {
			return // the user, host or tail holds the password too: no secret to keep
		}
		if err != nil {
			if strings.Contains(err.Error(), pass) {
				t.Fatalf("ParseDSN(%q): the error shows the password: %v", dsn, err)
			}
			return
		}
		if s := c.String(); strings.Contains(s, pass) {
			t.Fatalf("ParseDSN(%q).String() = %q shows the password", dsn, s)
		}
	})
}
