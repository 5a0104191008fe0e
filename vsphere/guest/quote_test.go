package guest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vmbench/target"
)

// nasty are arguments that break naive quoting on either OS.
var nasty = []string{"", " ", "plain", "two words", "it's", `say "hi"`, `a\b`, `a\\"b`, `trail\`, `trail\\`, "$HOME", "`id`", "$(id)",
	"*", "a;b", "a&b", "a|b", "<in", ">out", "%PATH%", "!x!", "^", "(x)", "\ttab", "é ü", "%s", "-c", "\\\"", `""`}

func TestShQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"/usr/bin/x", "/usr/bin/x"},
		{"", "''"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"a=b,c:d%e+f@g", "a=b,c:d%e+f@g"},
	} {
		if got := shQuote(c.in); got != c.want {
			t.Errorf("shQuote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	if got, want := posixCommand("/opt/my prog", []string{"a b", "c"}, "/w/out.txt"),
		`-c 'exec '\''/opt/my prog'\'' '\''a b'\'' c </dev/null >/w/out.txt 2>&1'`; got != want {
		t.Errorf("posixCommand = %s\nwant            %s", got, want)
	}
}

// TestPosixCommandRoundTrip runs posixCommand's arguments through two real
// shells, as Linux Tools does ("PROGRAM ARGUMENTS" through a shell, then
// /bin/sh -c), and checks that printf receives every argument unchanged.
func TestPosixCommandRoundTrip(t *testing.T) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Skip("no printf binary:", err)
	}
	out := filepath.Join(t.TempDir(), "it's out.txt")
	args := append([]string{"[%s]"}, nasty...)
	line := "exec " + posixShell + " " + posixCommand(printf, args, out)
	if b, err := exec.Command("/bin/sh", "-c", line).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, a := range nasty {
		want += "[" + a + "]"
	}
	if string(got) != want {
		t.Errorf("printf got\n%q\nwant\n%q", got, want)
	}
}

func TestArgvQuote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"", `""`},
		{"two words", `"two words"`},
		{`a\b`, `a\b`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\\"b`, `"a\\\\\"b"`},
		{`trail\ x\`, `"trail\ x\\"`},
		{"a&b", "a&b"},
	} {
		if got := argvQuote(c.in); got != c.want {
			t.Errorf("argvQuote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestWindowsCommand(t *testing.T) {
	for _, c := range []struct {
		prog string
		args []string
		out  string
		want string
	}{
		{`C:\vmbench\agent.exe`, []string{"run", "job.json"}, `C:\vmbench\out.txt`,
			`/d /v:off /s /c ""C:\vmbench\agent.exe" run job.json <NUL >"C:\vmbench\out.txt" 2>&1"`},
		{`C:\Program Files (x86)\a&b\p.exe`, []string{"a b", "x&y", "%PATH%", `q"`}, "NUL",
			`/d /v:off /s /c ""C:\Program Files (x86)\a&b\p.exe" ^"a b^" x^&y ^%PATH^% ^"q\^"^" <NUL >NUL 2>&1"`},
	} {
		got, err := windowsCommand(c.prog, c.args, c.out)
		if err != nil || got != c.want {
			t.Errorf("windowsCommand(%q, %q) =\n%s, %v\nwant\n%s", c.prog, c.args, got, err, c.want)
		}
	}
	for _, p := range []string{`C:\100%\p.exe`, `C:\a"b\p.exe`} {
		if _, err := windowsCommand(p, nil, "NUL"); !errors.Is(err, target.ErrBadPath) {
			t.Errorf("program %q: err = %v, want ErrBadPath", p, err)
		}
	}
}

// TestWindowsCommandRoundTrip decodes windowsCommand's output the way
// cmd.exe /s /c and then the program's CommandLineToArgvW would (a model
// of both, since no Windows guest is here) and checks that the program,
// every argument and the redirections come back unchanged.
func TestWindowsCommandRoundTrip(t *testing.T) {
	prog, out := `C:\Program Files\vm bench (x)\agent.exe`, `C:\w d\out.txt`
	line, err := windowsCommand(prog, nasty, out)
	if err != nil {
		t.Fatal(err)
	}
	body, ok := strings.CutPrefix(line, `/d /v:off /s /c "`)
	if !ok || !strings.HasSuffix(body, `"`) {
		t.Fatalf("not a /s /c \"...\" line: %s", line)
	}
	body = strings.TrimSuffix(body, `"`) // what /s leaves
	cmdline, rest := cmdPhase2(t, body)
	if rest != `<NUL >"`+out+`" 2>&1` {
		t.Errorf("redirections %q", rest)
	}
	argv := parseArgv(cmdline)
	if len(argv) == 0 || argv[0] != prog {
		t.Fatalf("program %q, want %q (line %s)", argv, prog, cmdline)
	}
	if !slices.Equal(argv[1:], nasty) {
		t.Errorf("arguments\n%q\nwant\n%q", argv[1:], nasty)
	}
}

// cmdPhase2 models cmd.exe's line parsing: a '%' must be caret-escaped
// (else it would expand), a '"' toggles quoting, and outside quotes '^'
// escapes the next character and an unescaped '<', '>', '&' or '|' ends
// the command. It returns the command (carets removed) and what follows.
func cmdPhase2(t *testing.T, s string) (cmd, rest string) {
	t.Helper()
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && (i == 0 || s[i-1] != '^'):
			t.Fatalf("unescaped %% at %d in %s", i, s)
		case c == '"':
			quoted = !quoted
		case !quoted && c == '^' && i+1 < len(s):
			i++
			c = s[i]
		case !quoted && strings.IndexByte("<>&|", c) >= 0:
			return strings.TrimSuffix(b.String(), " "), s[i:]
		}
		b.WriteByte(c)
	}
	return b.String(), ""
}

// parseArgv splits a command line by the CommandLineToArgvW rules: the
// program name runs to the next space (quotes group, no escapes); then 2n
// backslashes before a quote are n backslashes and the quote toggles,
// 2n+1 are n and a literal quote, and other backslashes are literal.
func parseArgv(s string) []string {
	var argv []string
	i := 0
	var name strings.Builder
	quoted := false
	for ; i < len(s) && (quoted || (s[i] != ' ' && s[i] != '\t')); i++ {
		if s[i] == '"' {
			quoted = !quoted
			continue
		}
		name.WriteByte(s[i])
	}
	argv = append(argv, name.String())
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return argv
		}
		var a strings.Builder
		quoted = false
		for ; i < len(s) && (quoted || (s[i] != ' ' && s[i] != '\t')); i++ {
			n := 0
			for i < len(s) && s[i] == '\\' {
				n++
				i++
			}
			if i < len(s) && s[i] == '"' {
				a.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					a.WriteByte('"')
				} else {
					quoted = !quoted
				}
				continue
			}
			a.WriteString(strings.Repeat(`\`, n))
			if i >= len(s) {
				break
			}
			if !quoted && (s[i] == ' ' || s[i] == '\t') {
				i--
				continue
			}
			a.WriteByte(s[i])
		}
		argv = append(argv, a.String())
	}
}

// TestWindowsSpec checks the spec Start sends to a Windows guest (over the
// fake, which records it; nothing runs).
func TestWindowsSpec(t *testing.T) {
	f := newFakeOps(t)
	tg := &Target{name: "win1", ops: recordOnly{f}, os: "windows", arch: "amd64", dir: `C:\vmbench`}
	spec, err := tg.programSpec(context.Background(), target.Command{Path: "bin/agent.exe", Args: []string{"run"}, Dir: "jobs/1", Env: []string{"A=b"}})
	if err != nil {
		t.Fatal(err)
	}
	if spec.ProgramPath != windowsCmd || spec.WorkingDirectory != `C:\vmbench\jobs\1` || !slices.Equal(spec.EnvVariables, []string{"A=b"}) ||
		spec.Arguments != `/d /v:off /s /c ""C:\vmbench\bin\agent.exe" run <NUL >NUL 2>&1"` {
		t.Errorf("spec = %+v", spec)
	}
	if _, err := tg.programSpec(context.Background(), target.Command{Path: "D:/tools/x.exe"}); err != nil {
		t.Errorf("absolute Windows program with forward slashes: %v", err)
	}
	if _, err := tg.programSpec(context.Background(), target.Command{Path: "a:b"}); !errors.Is(err, target.ErrBadPath) {
		t.Errorf("colon in a Windows remote path: %v", err)
	}
}

// recordOnly is the fake without process starts (the Windows spec test
// must not run anything).
type recordOnly struct{ *fakeOps }
