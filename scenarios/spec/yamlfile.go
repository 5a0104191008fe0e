package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

// section names, for "unknown key" errors, the part of a file that one Go
// struct type decodes: its name in messages ("the top level", "vms") and
// a value of the type, whose yaml tags are the valid keys.
type section struct {
	name string
	v    any
}

var (
	yamlPrefix   = regexp.MustCompile(`^yaml: (unmarshal errors:\n\s*)?`)
	unknownField = regexp.MustCompile(`field (\S+) not found in type [\w/]+\.(\w+)`)
	// intoType is where yaml.v3 names the Go type a value does not
	// decode into ("cannot unmarshal !!seq into spec.Driver").
	intoType = regexp.MustCompile(`into (\w+\.\w+)`)
	// campaignName keeps names safe in directory names, database names and
	// vSphere campaign ids (at most 64 characters with the time suffix).
	campaignName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)
)

// decodes counts decodeFile's decodes (DecodeCount).
var decodes atomic.Int64

// DecodeCount is how many campaign, suite or review files this process
// has decoded so far: tests check with it that a run decodes each file
// once. Nothing prints it.
func DecodeCount() int64 { return decodes.Load() }

// decodeFile strictly decodes data, the text of file, into v (a pointer
// to a struct): it must hold one YAML document; an unknown key is an error
// naming its line, its section (sections, by Go type name) and the valid
// keys; a value that does not decode names its line. what names the kind
// of file in messages ("campaign file"). It returns where v was read
// from, for the lines of later errors.
func decodeFile(file string, data []byte, v any, what string, sections map[string]section) (Origin, error) {
	decodes.Add(1)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return Origin{}, fmt.Errorf("%s: the %s is empty", file, what)
		}
		msg := yamlPrefix.ReplaceAllString(err.Error(), "")
		msg = unknownField.ReplaceAllStringFunc(msg, func(m string) string {
			sub := unknownField.FindStringSubmatch(m)
			sec, ok := sections[sub[2]]
			if !ok {
				return m
			}
			return fmt.Sprintf("unknown key %q in %s (valid: %s)", sub[1], sec.name, yamlKeys(sec.v))
		})
		strs := namedStrings(reflect.TypeOf(v), map[reflect.Type]bool{}, map[string]bool{})
		msg = intoType.ReplaceAllStringFunc(msg, func(m string) string {
			if strs[strings.TrimPrefix(m, "into ")] {
				return "into string"
			}
			return m
		})
		return Origin{}, fmt.Errorf("%s: %s", file, strings.ReplaceAll(msg, "\n  ", "; "))
	}
	if err := restEmpty(dec); err != nil {
		return Origin{}, fmt.Errorf("%s: %w; a %s is one document", file, err, what)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) != 1 {
		return Origin{File: file}, nil
	}
	src := Origin{File: file, root: doc.Content[0]}
	if errs := checkTree(src, src.root, reflect.TypeOf(v), ""); len(errs) > 0 {
		return Origin{}, errors.Join(errs...)
	}
	return src, nil
}

// namedStrings adds to out the names yaml.v3 gives the named string
// types (spec.Driver) that t's fields hold, nested ones included, seen
// marking the types walked. A key of such a type takes a string, and a
// value that does not decode is said not to decode into a string,
// whatever the type is called in Go.
func namedStrings(t reflect.Type, seen map[reflect.Type]bool, out map[string]bool) map[string]bool {
	if seen[t] {
		return out
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		namedStrings(t.Elem(), seen, out)
	case reflect.Map:
		namedStrings(t.Key(), seen, out)
		namedStrings(t.Elem(), seen, out)
	case reflect.Struct:
		for i := range t.NumField() {
			namedStrings(t.Field(i).Type, seen, out)
		}
	case reflect.String:
		if t.PkgPath() != "" && !reflect.PointerTo(t).Implements(reflect.TypeFor[yaml.Unmarshaler]()) {
			out[t.String()] = true
		}
	default: // numbers, booleans, interfaces: yaml names them as Go does
	}
	return out
}

// restEmpty reads the documents after the first: none, or only empty ones
// (a file that ends with the separator ---).
func restEmpty(dec *yaml.Decoder) error {
	for {
		var extra yaml.Node
		err := dec.Decode(&extra)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		if len(extra.Content) == 1 && extra.Content[0].ShortTag() == "!!null" && extra.Content[0].Value == "" {
			continue
		}
		return fmt.Errorf("holds more than one YAML document (the second at line %d)", extra.Line)
	}
}

// yamlKeys lists the yaml keys of a struct value.
func yamlKeys(v any) string {
	t := reflect.TypeOf(v)
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "" && k != "-" {
			keys = append(keys, k)
		}
	}
	return strings.Join(keys, ", ")
}

// FileKind is a file's kind: key: SuiteKind (Suite.Kind) or ReviewKind
// (Review.Kind); a VM campaign's file has none (""). A block suite's
// results directory records its kind in run.json too (rundir.RunInfo's
// kind, rundir.SuiteRunKind).
type FileKind string

// File is a campaign file of either kind, as LoadAny read it: a VM
// campaign (Campaign, no kind:) or a block suite (Suite, kind: block-suite).
type File struct {
	// Kind is the file's kind: "" for a VM campaign, or SuiteKind.
	Kind     FileKind
	Campaign *Campaign
	Suite    *Suite
}

// LoadAny reads a campaign file and decodes it by its kind: (none for a
// VM campaign of OLTP workloads, block-suite for the block suite): the one
// place where the kinds are told apart. Errors name the file and line; an
// unknown kind lists the valid ones. A missing file's error wraps
// fs.ErrNotExist.
func LoadAny(path string) (*File, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return loadAnyBytes(path, b)
}

// loadAnyBytes is LoadAny of b, the text of the file path names.
func loadAnyBytes(path string, b []byte) (*File, error) {
	var head struct {
		Kind     yaml.Node `yaml:"kind"`
		Targets  yaml.Node `yaml:"targets"`
		Profiles yaml.Node `yaml:"profiles"`
	}
	_ = yaml.Unmarshal(b, &head) // a file that does not decode: its loader says why
	switch kind := head.Kind; {
	case kind.Kind == 0 && (head.Targets.Kind != 0 || head.Profiles.Kind != 0):
		line := head.Targets.Line
		if line == 0 {
			line = head.Profiles.Line
		}
		return nil, fmt.Errorf("%s:%d: targets: and profiles: are keys of a block suite: add kind: %s at the top (a VM campaign has no kind:)", path, line, SuiteKind)
	case kind.Kind == 0:
		s, err := Parse(path, b)
		if err != nil {
			return nil, err
		}
		return &File{Campaign: s}, nil
	case kind.Kind == yaml.ScalarNode && kind.ShortTag() == "!!str" && FileKind(kind.Value) == SuiteKind:
		s, err := ParseSuite(path, b)
		if err != nil {
			return nil, err
		}
		return &File{Kind: SuiteKind, Suite: s}, nil
	default:
		return nil, fmt.Errorf("%s:%d: kind: %s is not known (valid: %s, or no kind for a VM campaign)", path, kind.Line, describeNode(&kind), SuiteKind)
	}
}
