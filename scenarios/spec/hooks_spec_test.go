package spec

import (
	"strings"
	"testing"
)

func TestHooksSpecErrors(t *testing.T) {
	for _, tc := range []struct{ name, hooks, want string }{
		{"empty command", "hooks:\n  before-run: [sync, \"\"]\n", `stub.yaml:7: hooks.before-run: command 2 is empty`},
		{"blank command", "hooks:\n  after-run:\n    - sync\n    - \"  \"\n", `stub.yaml:9: hooks.after-run: command 2 is empty`},
		{"null command", "hooks:\n  before-prepare:\n    -\n", `stub.yaml:8: hooks.before-prepare: command 1 is empty`},
		{"unknown hook", "hooks:\n  before-load: [sync]\n", `line 7: unknown key "before-load" in hooks (valid: before-prepare, before-run, after-run, on-failure, timeout)`},
		{"not a list", "hooks:\n  before-run: {a: b}\n", "stub.yaml: line 7: cannot unmarshal"},
		{"bad on-failure", "hooks:\n  before-run: [sync]\n  on-failure: ignore\n", `stub.yaml:8: hooks.on-failure: "ignore" is not valid`},
		{"bad timeout", "hooks:\n  before-run: [sync]\n  timeout: 100ms\n", `stub.yaml:8: hooks.timeout: 100ms is not valid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("stub.yaml", []byte(stubSpec+tc.hooks))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// stubSpec is a small campaign of the stub workload (the campaign
// engine's tests run it); the hooks: block goes at its end.
const stubSpec = `name: stub-campaign
vms: {role: sysbench, count: 4}
database: {driver: mysql}
workload: {tool: stub, name: stub, flags: {threads: 1}}
simulate: {vms: {count: 3}}
`
