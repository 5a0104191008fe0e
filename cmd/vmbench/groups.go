package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// groupConstructors holds one constructor per command group; each group's
// file adds its own from init(), so main.go never changes when a group is
// added.
var groupConstructors []func(*app) *cobra.Command

func registerGroup(f func(*app) *cobra.Command) { groupConstructors = append(groupConstructors, f) }

// commandGroups makes every group: the constructors' and then one per
// registered workload tool (workloadGroups) whose name they do not take.
func commandGroups(a *app) []*cobra.Command {
	cmds := make([]*cobra.Command, 0, len(groupConstructors))
	names := map[string]bool{}
	for _, f := range groupConstructors {
		c := f(a)
		cmds = append(cmds, c)
		names[c.Name()] = true
	}
	return append(cmds, workloadGroups(a, func(name string) bool { return names[name] })...)
}

// isCobraUsageError reports whether err is one of cobra's own complaints
// about the command line (unknown command, wrong number of arguments).
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument", "required flag"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, " "+p) {
			return true
		}
	}
	return false
}

// exactArgs is cobra.ExactArgs with a usage error that names the argument.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s: takes %s (got %d arguments; see '%s --help')", cmd.CommandPath(), names, len(args), cmd.CommandPath())
		}
		return nil
	}
}
