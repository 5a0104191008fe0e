package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"vmbench/scenarios/review"
)

// checkOutput refuses, before anything is read or written, an --output
// that is a directory, whose directory does not exist, or that lies
// inside one of the input directories dirs (their paths resolved,
// symlinks evaluated): writing there would replace a results or review
// directory's own files.
func checkOutput(output string, dirs []string) error {
	if fi, err := os.Stat(output); err == nil && fi.IsDir() {
		return usagef("--output %s is a directory: give a file name (e.g. %s)", output, filepath.Join(output, "report.html"))
	}
	out, err := resolvedOutput(output)
	if err != nil {
		return usagef("--output %s: its directory %s cannot be used: %v", output, filepath.Dir(output), pathErr(err))
	}
	for _, d := range dirs {
		dir, err := resolved(d)
		if err != nil {
			continue // ReadInput names it
		}
		if rel, err := filepath.Rel(dir, out); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return usagef("--output %s is inside the input directory %s, whose files it would replace: write it outside the inputs (e.g. %s); "+
				"without --output and --format, one directory's reports are written into it", output, d,
				filepath.Join(filepath.Dir(filepath.Clean(d)), filepath.Base(output)))
		}
	}
	return nil
}

// resolved is path made absolute with its symlinks evaluated.
func resolved(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// resolvedOutput is where --output would be written: its directory
// resolved and its base name (the file is replaced by a rename, so a
// symlink there is replaced, not followed).
func resolvedOutput(output string) (string, error) {
	dir, err := resolved(filepath.Dir(output))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(output)), nil
}

// outputError is the error of writing --output: it names the --output
// path and what went wrong, not the temporary file it was written to.
func outputError(output string, err error) error {
	return usagef("--output %s: cannot write it: %v", output, pathErr(err))
}

// pathErr is err without the path an *fs.PathError or *os.LinkError
// names ("permission denied"), for a message that names its own.
func pathErr(err error) error {
	var le *os.LinkError
	var pe *fs.PathError
	switch {
	case errors.As(err, &le):
		return le.Err
	case errors.As(err, &pe):
		return pe.Err
	}
	return err
}

// distinctInputs refuses a directory given twice (os.SameFile: also
// through a symlink or another path) and a results directory given both
// on its own and in a review directory, or in two, naming both inputs;
// it names inputs that share a base name by the paths given, so that
// their columns and JSON figures stay apart.
func distinctInputs(inputs []*review.Input) error {
	type seen struct {
		in *review.Input
		fi os.FileInfo
	}
	var inDirs, repDirs []seen
	names := map[string]int{}
	for _, in := range inputs {
		fi, err := os.Stat(in.Dir)
		if err != nil {
			return asUsage(err)
		}
		for _, s := range inDirs {
			if os.SameFile(s.fi, fi) {
				return usagef("%s and %s are the same directory: give each directory once", s.in.Dir, in.Dir)
			}
		}
		inDirs = append(inDirs, seen{in, fi})
		for _, rep := range in.Reports {
			fi, err := os.Stat(rep.Dir)
			if err != nil {
				return asUsage(err)
			}
			for _, s := range repDirs {
				if os.SameFile(s.fi, fi) {
					return usagef("%s and %s both hold the results directory %s (a review directory holds its campaigns' directories): "+
						"give the review directory or its campaigns, not both", s.in.Dir, in.Dir, rep.Dir)
				}
			}
			repDirs = append(repDirs, seen{in, fi})
		}
		names[in.Name]++
	}
	for _, in := range inputs {
		if names[in.Name] > 1 {
			in.Name = filepath.Clean(in.Dir)
		}
	}
	return nil
}
