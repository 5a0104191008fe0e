package guest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"vmbench/target"
)

func TestGuestOS(t *testing.T) {
	for _, c := range []struct {
		id       identity
		os, arch string
		err      string
	}{
		{identity{GuestID: "ubuntu64Guest", GuestFamily: "linuxGuest"}, "linux", "amd64", ""},
		{identity{ConfigID: "rhel9_64Guest"}, "linux", "amd64", ""},
		{identity{ConfigID: "windows2019srv_64Guest"}, "windows", "amd64", ""},
		{identity{GuestID: "windows2022srvNext_64Guest", GuestFamily: "windowsGuest"}, "windows", "amd64", ""},
		// Tools' report wins over the configured id.
		{identity{ConfigID: "otherGuest64", GuestID: "debian12_64Guest", GuestFamily: "linuxGuest"}, "linux", "amd64", ""},
		// A Windows release newer than the host knows: MSI Tools.
		{identity{ConfigID: "windows9Server64Guest", GuestFamily: "otherGuestFamily", ToolsInstallType: "guestToolsTypeMSI"}, "windows", "amd64", ""},
		{identity{ConfigID: "arm-ubuntu64Guest"}, "linux", "arm64", ""},
		{identity{GuestFamily: "linuxGuest", FullName: "Ubuntu Linux (ARM64)"}, "linux", "arm64", ""},
		{identity{GuestFamily: "linuxGuest"}, "linux", "amd64", ""},
		{identity{ConfigID: "ubuntuGuest"}, "", "", "32-bit"},
		{identity{ConfigID: "otherGuest64", ConfigFullName: "Other (64-bit)"}, "", "", "neither Windows nor Linux"},
		{identity{ConfigID: "darwin20_64Guest"}, "", "", "neither"},
		{identity{}, "", "", "neither"},
	} {
		goos, arch, err := guestOS(c.id)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("guestOS(%+v) = %s/%s, %v; want an error with %q", c.id, goos, arch, err, c.err)
			}
			continue
		}
		if err != nil || goos != c.os || arch != c.arch {
			t.Errorf("guestOS(%+v) = %s/%s, %v; want %s/%s", c.id, goos, arch, err, c.os, c.arch)
		}
	}
}

func TestParseLogin(t *testing.T) {
	for _, c := range []struct {
		in         string
		user, pass string
		err        bool
	}{
		{"bench:pw", "bench", "pw", false},
		{`DOMAIN\bench:p:w:d`, `DOMAIN\bench`, "p:w:d", false},
		{"bench", "", "", true},
		{"bench:", "", "", true},
		{":pw", "", "", true},
		{"", "", "", true},
	} {
		a, err := ParseLogin(c.in)
		if (err != nil) != c.err || a.User != c.user || a.Password != c.pass {
			t.Errorf("ParseLogin(%q) = %+v, %v", c.in, a, err)
		}
		if err != nil && (!strings.Contains(err.Error(), EnvGuestLogin) || (c.in != "" && strings.Contains(err.Error(), ":pw"))) {
			t.Errorf("ParseLogin(%q) error %q: want it to name %s and not show the password", c.in, err, EnvGuestLogin)
		}
	}
	if s := (Auth{User: "u", Password: "secret"}).String(); strings.Contains(s, "secret") {
		t.Errorf("Auth.String shows the password: %s", s)
	}
}

func TestCleanDir(t *testing.T) {
	for _, c := range []struct {
		os, in, want string
	}{
		{"linux", "/home/bench/vmbench", "/home/bench/vmbench"},
		{"linux", "/home/bench/vmbench/", "/home/bench/vmbench"},
		{"linux", "/", "/"},
		{"linux", "home/bench", ""},
		{"linux", "/a//b", ""},
		{"linux", "/a/../b", ""},
		{"linux", "", ""},
		{"windows", `C:\vmbench`, `C:\vmbench`},
		{"windows", `C:\vmbench\`, `C:\vmbench`},
		{"windows", `d:/bench/run 1`, `d:\bench\run 1`},
		{"windows", `C:\`, `C:\`},
		{"windows", `\vmbench`, ""},
		{"windows", `\\server\share`, ""},
		{"windows", `C:vmbench`, ""},
		{"windows", `C:\a\..\b`, ""},
		{"windows", `C:\a\\b`, ""},
		{"windows", `C:\100%`, ""},
	} {
		got, err := cleanDir(c.os, c.in)
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("cleanDir(%s, %q) = %q, %v; want %q", c.os, c.in, got, err, c.want)
		}
	}
}

func TestGuestPathWindows(t *testing.T) {
	tg := &Target{os: "windows", dir: `C:\vmbench`}
	if got := tg.guestPath("a/b.txt"); got != `C:\vmbench\a\b.txt` {
		t.Errorf("guestPath = %s", got)
	}
	if d, b := tg.guestParent("a/b/c.txt"); d != `C:\vmbench\a\b` || b != "c.txt" {
		t.Errorf("guestParent = %s, %s", d, b)
	}
	root := &Target{os: "windows", dir: `C:\`}
	if got := root.guestPath("x"); got != `C:\x` {
		t.Errorf("guestPath below a drive root = %s", got)
	}
	if err := tg.checkRemote("p", "c:x"); !errors.Is(err, target.ErrBadPath) {
		t.Errorf("colon on Windows: %v", err)
	}
}

func TestMergeEnv(t *testing.T) {
	base := []string{"PATH=/bin", "HOME=/home/b", "Path=x"}
	for _, c := range []struct {
		add     []string
		windows bool
		want    []string
	}{
		{[]string{"SECRET=s"}, false, []string{"PATH=/bin", "HOME=/home/b", "Path=x", "SECRET=s"}},
		{[]string{"HOME=/w", "A=1", "A=2"}, false, []string{"PATH=/bin", "HOME=/w", "Path=x", "A=2"}},
		{[]string{"path=C:\\bin"}, true, []string{"path=C:\\bin", "HOME=/home/b", "Path=x"}},
		{[]string{"X=a=b"}, false, []string{"PATH=/bin", "HOME=/home/b", "Path=x", "X=a=b"}},
	} {
		if got := mergeEnv(base, c.add, c.windows); !slices.Equal(got, c.want) {
			t.Errorf("mergeEnv(%q, windows=%v) = %q, want %q", c.add, c.windows, got, c.want)
		}
	}
}
