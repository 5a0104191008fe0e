package spec

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"vmbench/internal/flagvalue"
)

// MaxFileSize bounds a campaign file (either kind): the largest shipped
// is a few KiB, and a bigger one is taken for the wrong file.
const MaxFileSize = 1 << 20

// readFile reads a campaign file: a regular file of at most MaxFileSize
// bytes, checked before it is opened, so that a device (/dev/zero) or a
// FIFO is refused rather than read without end. A missing file's error
// wraps fs.ErrNotExist.
func readFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s); a campaign file is a YAML file", path, fi.Mode().Type())
	}
	if fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %d bytes; a campaign file is at most 1 MiB", path, fi.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && len(b) > MaxFileSize {
		err = fmt.Errorf("%s: more than 1 MiB; a campaign file is at most 1 MiB", path)
	}
	return b, err
}

// checkTree checks the decoded document n against t, the Go type it was
// decoded into, for what yaml.v3 lets through: an int field given a
// number that is not whole (8.5, which it truncates), and workload flags
// (a map of any) whose keys start with '-' or name one flag twice, or
// whose values are not scalars. path is n's key path ("vms"); each
// problem names its file and line.
func checkTree(src Origin, n *yaml.Node, t reflect.Type, path string) []error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return nil
	}
	key := func(k string) string { return strings.TrimPrefix(path+"."+k, ".") }
	var errs []error
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %s is not a whole number", src.File, n.Line, path, n.Value))
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				errs = append(errs, checkTree(src, c, t.Elem(), key(strconv.Itoa(i)))...)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode && t.Elem().Kind() == reflect.Interface {
			errs = append(errs, checkFlags(src, n, path)...)
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
				fields[k] = t.Field(i).Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if ft, ok := fields[n.Content[i].Value]; ok {
				errs = append(errs, checkTree(src, n.Content[i+1], ft, key(n.Content[i].Value))...)
			}
		}
	default: // strings, booleans, floats, durations: the decoder checked them
	}
	return errs
}

// checkFlags checks a mapping of workload flags at path: keys without
// leading dashes, no flag named twice ('_' read as '-'), each value one
// scalar.
func checkFlags(src Origin, n *yaml.Node, path string) []error {
	var errs []error
	seen := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := fmt.Sprintf("%s:%d: %s.%s: ", src.File, k.Line, path, k.Value)
		name := flagvalue.Name(k.Value)
		switch {
		case strings.HasPrefix(k.Value, "-"):
			errs = append(errs, fmt.Errorf("%swrite the flag name without dashes: %s", at, strings.TrimLeft(k.Value, "-")))
			continue
		case seen[name] != "":
			errs = append(errs, fmt.Errorf("%sthe flag %s is already given as %s; give it once", at, name, seen[name]))
			continue
		}
		seen[name] = k.Value
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			errs = append(errs, fmt.Errorf("%s%s is not a flag value; a flag value is one number, word or duration", at, describeNode(v)))
		}
	}
	return errs
}

// describeNode names what a value that is not a scalar is, for messages.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a map"
	case yaml.AliasNode:
		return "an alias"
	default: // a scalar: named below
	}
	if n.ShortTag() == "!!null" {
		return "an empty value"
	}
	return strconv.Quote(n.Value)
}
