package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"vmbench/dialect"
	"vmbench/oltp"
	"vmbench/workload"

	// The tools register themselves (workload.Register) from init.
	_ "vmbench/sysbench"
	_ "vmbench/tpcc"
	_ "vmbench/vdbench"
)

// The command groups of the registered workload tools, built from their
// Descriptors alone: one command per verb, the Config's flags bound once
// per command, usage errors exit 2.

// workloadGroups returns a command group for every registered tool that
// has commands, except a tool whose name a group of its own already
// takes (taken).
func workloadGroups(a *app, taken func(name string) bool) []*cobra.Command {
	var cmds []*cobra.Command
	for _, t := range workload.Tools() {
		if d := t.Describe(); len(d.Commands) > 0 && !taken(d.Name) {
			cmds = append(cmds, newToolCmd(a, t))
		}
	}
	return cmds
}

// newToolCmd makes the group of tool t. When its commands take a
// WORKLOAD, the group also takes sysbench's order, 'TOOL WORKLOAD
// COMMAND [flags]'.
func newToolCmd(a *app, t workload.Tool) *cobra.Command {
	d := t.Describe()
	cmd := &cobra.Command{Use: orDefault(d.Usage, d.Name), Short: d.Short, Long: d.Long, Example: d.Example}
	switch {
	case d.HelpOnly:
		cmd.Args = cobra.NoArgs // and no RunE: cobra prints the help
	case slices.ContainsFunc(d.Commands, func(c workload.Command) bool { return c.Workload }):
		// 'sysbench WORKLOAD COMMAND' reaches this RunE; flags are parsed
		// by the command it dispatches to.
		cmd.DisableFlagParsing = true
		cmd.RunE = func(cmd *cobra.Command, args []string) error { return dispatchWorkloadFirst(cmd, d, args) }
	default:
		cmd.Args = cobra.ArbitraryArgs
		cmd.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usagef("%s: unknown command %q (want %s; see '%s --help')", cmd.CommandPath(), args[0], verbList(d), cmd.CommandPath())
		}
	}
	for _, c := range d.Commands {
		cmd.AddCommand(newVerbCmd(a, t, c))
	}
	return cmd
}

func orDefault(s, fallback string) string {
	if s != "" {
		return s
	}
	return fallback
}

// verbList names the tool's commands: "prepare, run or cleanup".
func verbList(d workload.Descriptor) string {
	names := make([]string, len(d.Commands))
	for i, c := range d.Commands {
		names[i] = string(c.Name)
	}
	return orList(names, " or ")
}

// orList joins names with commas and last before the last one.
func orList(names []string, last string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + last + names[len(names)-1]
}

// dispatchWorkloadFirst handles the orders cobra does not route to a
// command: sysbench 1.0's 'TOOL [options]... [WORKLOAD] COMMAND', with
// options before, between and after the positional arguments, which are
// WORKLOAD COMMAND or COMMAND [WORKLOAD]. The command's own flag set then
// parses every argument, so its messages and exit statuses are the ones
// of 'TOOL COMMAND [WORKLOAD] [flags]'.
func dispatchWorkloadFirst(cmd *cobra.Command, d workload.Descriptor, args []string) error {
	if len(args) == 0 || slices.Contains([]string{"-h", "--help", "help"}, args[0]) {
		return cmd.Help()
	}
	pos, help := positionals(cmd, args)
	isVerb := func(i int) bool {
		return i < len(pos) && slices.ContainsFunc(d.Commands, func(c workload.Command) bool { return string(c.Name) == pos[i] })
	}
	at := 0 // where in pos the command is
	switch {
	case len(pos) == 0 && help:
		return cmd.Help()
	case len(pos) == 0:
		return usagef("%s: no command (want %s, e.g. '%s run %s'; see '%s --help')",
			cmd.CommandPath(), verbList(d), cmd.CommandPath(), d.Workloads[0], cmd.CommandPath())
	case isVerb(0):
	case isVerb(1):
		at = 1
	default:
		return usagef("%s: unknown command %q (want %s, e.g. '%s run %s'; see '%s --help')",
			cmd.CommandPath(), pos[0], verbList(d), cmd.CommandPath(), d.Workloads[0], cmd.CommandPath())
	}
	sub, _, err := cmd.Find(pos[at : at+1])
	if err != nil {
		return usagef("%v", err)
	}
	sub.SetContext(cmd.Context())
	sub.InitDefaultHelpFlag()
	if err := sub.ParseFlags(args); err != nil {
		return usagef("%s: %v (see '%s --help')", sub.CommandPath(), err, sub.CommandPath())
	}
	if help, _ := sub.Flags().GetBool("help"); help {
		return sub.Help()
	}
	rest := slices.Delete(slices.Clone(sub.Flags().Args()), at, at+1) // the same positionals as pos
	if sub.Args != nil {
		if err := sub.Args(sub, rest); err != nil {
			return err
		}
	}
	return sub.RunE(sub, rest)
}

// positionals returns the arguments of args that are neither options nor
// their values, in order, and whether -h or --help is among the options.
// It parses args, interspersed, with a flag set of every option of cmd's
// commands (what takes a value is theirs) whose values are discarded; an
// unknown option is taken to have no value (or its --name=value), and
// every problem (an unknown flag, a missing value) is left to the
// command's own parse to report.
func positionals(cmd *cobra.Command, args []string) ([]string, bool) {
	fs := pflag.NewFlagSet(cmd.Name(), pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.ParseErrorsAllowlist.UnknownFlags = true // unknown shorthands
	help := fs.BoolP("help", "h", false, "")
	addDiscarded := func(f *pflag.Flag) {
		if fs.Lookup(f.Name) == nil {
			fs.AddFlag(&pflag.Flag{Name: f.Name, Shorthand: f.Shorthand, NoOptDefVal: f.NoOptDefVal, Value: discardValue{f.Value.Type()}})
		}
	}
	for _, sub := range cmd.Commands() {
		fs.SetNormalizeFunc(sub.Flags().GetNormalizeFunc())
		sub.Flags().VisitAll(func(f *pflag.Flag) {
			g := *f
			if g.Shorthand != "" && fs.ShorthandLookup(g.Shorthand) != nil {
				g.Shorthand = ""
			}
			addDiscarded(&g)
		})
	}
	for _, a := range args {
		name, long := strings.CutPrefix(a, "--")
		name, _, _ = strings.Cut(name, "=")
		if a == "--" {
			break
		}
		if long && name != "" && !strings.HasPrefix(name, "-") {
			addDiscarded(&pflag.Flag{Name: name, NoOptDefVal: "true", Value: discardValue{"unknown"}})
		}
	}
	_ = fs.Parse(args) // the positionals before a problem are in fs.Args()
	return fs.Args(), *help
}

// discardValue is an option's value that accepts anything and keeps
// nothing (positionals' flag set).
type discardValue struct{ typ string }

func (discardValue) String() string   { return "" }
func (discardValue) Set(string) error { return nil }
func (v discardValue) Type() string   { return v.typ }

func workloadArg(cmd *cobra.Command, args []string) error {
	if len(args) > 1 {
		return usagef("%s: takes at most one WORKLOAD (got %q; see '%s --help')", cmd.CommandPath(), args, cmd.CommandPath())
	}
	return nil
}

// verbCmd is one command of a tool: its Config, bound to the command's
// flags once.
type verbCmd struct {
	a          *app
	tool       workload.Descriptor
	verb       workload.Verb
	cfg        workload.Config
	resultFile string
}

// newVerbCmd makes command c of tool t. A Commander's Config binds the
// command's own options and takes its arguments; a command that takes
// an Arg needs one (it panics otherwise: a programming error, found when
// the binary starts).
func newVerbCmd(a *app, t workload.Tool, c workload.Command) *cobra.Command {
	v := &verbCmd{a: a, tool: t.Describe(), verb: c.Name, cfg: t.NewConfig()}
	cmd := &cobra.Command{Use: string(c.Name), Short: c.Short, Long: c.Long, Example: c.Example, Args: cobra.NoArgs,
		RunE: v.runE}
	cm, commander := v.cfg.(workload.Commander)
	switch {
	case c.Workload:
		cmd.Use, cmd.Args = cmd.Use+" [WORKLOAD]", workloadArg
	case c.Arg.Name != "" && !commander:
		panic(fmt.Sprintf("vmbench: %s %s takes %s, but its Config is no workload.Commander", v.tool.Name, c.Name, c.Arg.Name))
	case c.Arg.Name != "":
		cmd.Use, cmd.Args = cmd.Use+" "+c.Arg.Usage(), cobra.ArbitraryArgs // the Config refuses extra ones
	}
	fs := cmd.Flags()
	if commander {
		cm.BindCommand(c.Name, fs)
	} else {
		v.cfg.BindFlags(fs)
	}
	scope, _ := v.cfg.(workload.FlagScoper)
	ignored := false
	fs.VisitAll(func(f *pflag.Flag) {
		if scope == nil {
			return
		}
		if !scope.FlagApplies(c.Name, f.Name) && !f.Hidden {
			f.Hidden, ignored = true, true // accepted and ignored
		}
		f.Usage = orDefault(scope.FlagUsage(c.Name, f.Name), f.Usage)
	})
	if ignored {
		cmd.Long += fmt.Sprintf("\n\nIt also accepts, and ignores, the options of the other %s commands that it\n"+
			"does not use (not listed below), so that one set of options serves every\n"+
			"command, as sysbench's commands take theirs.", v.tool.Name)
	}
	if _, dir := v.cfg.(workload.DirRunner); c.Name == workload.VerbRun && !dir {
		fs.StringVar(&v.resultFile, "result-file", "", "write the JSON Result here (atomically; marked interrupted after Ctrl-C)")
	}
	return cmd
}

func (v *verbCmd) runE(cmd *cobra.Command, args []string) error {
	if err := v.complete(cmd, args); err != nil {
		return err
	}
	if err := v.checkOpenFiles(); err != nil {
		return err
	}
	ctx := cmd.Context()
	switch v.verb {
	case workload.VerbPrepare:
		return flagUsage(v.cfg.Prepare(ctx, workload.Env{Log: v.a.stderr, Terminal: v.a.terminal}))
	case workload.VerbRun:
		return v.run(ctx)
	case workload.VerbCheck:
		ch, ok := v.cfg.(workload.Checker)
		if !ok {
			return fmt.Errorf("%s: %s has no consistency checks", cmd.CommandPath(), v.tool.Name)
		}
		return ch.Check(ctx, workload.Env{Log: v.a.stdout})
	case workload.VerbCleanup:
		return flagUsage(v.cfg.Cleanup(ctx, workload.Env{Log: v.a.stdout}))
	}
	info, ok := v.cfg.(workload.Informer)
	if !ok {
		return fmt.Errorf("%s: %s has no command %s", cmd.CommandPath(), v.tool.Name, v.verb)
	}
	return info.Info(v.a.stdout, v.verb)
}

// complete completes and validates the Config: every problem is a usage
// error (exit 2), found before anything connects. The options of other
// commands that this one does not use (a FlagScoper's) are accepted and
// ignored, and validated all the same: a set of options that is wrong
// for one command is wrong for every command.
func (v *verbCmd) complete(cmd *cobra.Command, args []string) error {
	name := ""
	cm, commander := v.cfg.(workload.Commander)
	switch {
	case commander:
		cm.SetCommand(cmd.CommandPath(), args)
	case len(args) == 1:
		name = args[0]
	}
	err := errors.Join(v.cfg.Complete(name, v.a.getenv, cmd.Flags().Changed), v.cfg.Validate())
	switch {
	case err == nil:
		return nil
	case commander:
		return asUsage(err) // its messages name the command where they should
	}
	return usagef("%s: %v", cmd.CommandPath(), err)
}

// run runs the Config, prints the peer tool's interval lines and report
// (a Reporter's) to stdout and writes --result-file; a DirRunner writes
// its results itself.
func (v *verbCmd) run(ctx context.Context) error {
	if dr, ok := v.cfg.(workload.DirRunner); ok {
		return flagUsage(dr.RunDir(ctx, v.a.stdout, workload.Env{Log: v.a.stderr, Terminal: v.a.terminal}))
	}
	if v.resultFile != "" {
		if err := checkResultDir(v.resultFile); err != nil {
			return usagef("--result-file: %v", err)
		}
	}
	env := workload.Env{Log: v.a.stdout}
	rep, ok := v.cfg.(workload.Reporter)
	if ok {
		env.Observer = rep.IntervalWriter(v.a.stdout)
	}
	out, err := v.cfg.Run(ctx, env)
	if out == nil {
		return flagUsage(err)
	}
	if ok {
		if werr := rep.WriteReport(v.a.stdout, out); werr != nil && err == nil {
			err = werr
		}
	}
	return writeResultFile(v.a, out.Result, v.resultFile, flagUsage(err))
}

// flagUsage makes the errors of a flag that does not fit the database
// (workload.ErrFlagValue: tables of another size, --threads beyond the
// server's max_connections) and a *workload.FlagError (a target or
// bound a DirRunner refuses) usage errors, exit status 2, like any other
// bad flag; nothing has been created or run when they are returned.
func flagUsage(err error) error {
	var fe *workload.FlagError
	if errors.Is(err, workload.ErrFlagValue) || errors.As(err, &fe) {
		return asUsage(err)
	}
	return err
}

// openFileLimit is dialect.ProcessFileLimit; tests lower it.
var openFileLimit = dialect.ProcessFileLimit

// checkOpenFiles refuses, before anything connects, a command whose
// connections need more open files than the process may have: the run
// would fail at the thread that hits the limit, after the others started.
func (v *verbCmd) checkOpenFiles() error {
	cc, ok := v.cfg.(workload.ConnectionCounter)
	if !ok || cc.Connections(v.verb) == 0 {
		return nil
	}
	conns := cc.Connections(v.verb)
	driver := dialect.MySQL
	if c, ok := v.cfg.(workload.Connector); ok {
		driver = c.Database().Driver
	}
	limit := openFileLimit()
	need := dialect.FilesNeeded(driver, conns)
	if limit == 0 || need <= limit {
		return nil
	}
	return usagef("--threads: %d connections need about %d open files, but this process may open %d (ulimit -n); raise the limit (ulimit -n %d) or use fewer threads",
		conns, need, limit, need)
}

// checkResultDir makes sure the result file can be written at the end,
// before the run starts: its directory exists and is writable, and the
// path is not a directory.
func checkResultDir(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory; name a file", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".vmbench-write-test-*")
	if err != nil {
		return fmt.Errorf("directory %s is not writable: %w", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeResultFile writes res to path when both are given and joins any
// failure to err, the run's own error.
func writeResultFile(a *app, res *oltp.Result, path string, err error) error {
	if res == nil || path == "" {
		return err
	}
	if werr := res.WriteFile(path); werr != nil {
		return errors.Join(err, fmt.Errorf("writing --result-file: %w", werr))
	}
	state := ""
	if st := res.State(); st != oltp.StatusComplete {
		state = " (" + string(st) + ")"
	}
	fmt.Fprintf(a.stderr, "Result written to %s%s\n", path, state)
	return err
}
