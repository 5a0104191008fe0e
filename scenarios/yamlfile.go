package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"strings"

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
	// campaignName keeps names safe in directory names, database names and
	// vSphere campaign ids (at most 64 characters with the time suffix).
	campaignName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)
)

// decodeFile strictly decodes data, the text of file, into v (a pointer
// to a struct): it must hold one YAML document; an unknown key is an error
// naming its line, its section (sections, by Go type name) and the valid
// keys; a value that does not decode names its line. what names the kind
// of file in messages ("campaign file"). It returns where v was read
// from, for the lines of later errors.
func decodeFile(file string, data []byte, v any, what string, sections map[string]section) (source, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return source{}, fmt.Errorf("%s: the %s is empty", file, what)
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
		return source{}, fmt.Errorf("%s: %s", file, strings.ReplaceAll(msg, "\n  ", "; "))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return source{}, fmt.Errorf("%s: holds more than one YAML document (line %d); a %s is one document", file, extra.Line, what)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) == 1 {
		return source{file: file, root: doc.Content[0]}, nil
	}
	return source{file: file}, nil
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

// File is a campaign file of either kind, as LoadAny read it: a VM
// campaign (Spec, no kind:) or a block suite (Suite, kind: block-suite).
type File struct {
	// Kind is the file's kind: "" for a VM campaign, or SuiteKind.
	Kind  string
	Spec  *Spec
	Suite *Suite
}

// LoadAny reads a campaign file and decodes it by its kind: (none for a
// VM campaign of OLTP workloads, block-suite for the block suite): the one
// place where the kinds are told apart. Errors name the file and line; an
// unknown kind lists the valid ones. A missing file's error wraps
// fs.ErrNotExist.
func LoadAny(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		Kind yaml.Node `yaml:"kind"`
	}
	_ = yaml.Unmarshal(b, &head) // a file that does not decode: its loader says why
	switch kind := head.Kind.Value; kind {
	case "":
		s, err := Parse(path, b)
		if err != nil {
			return nil, err
		}
		return &File{Spec: s}, nil
	case SuiteKind:
		s, err := ParseSuite(path, b)
		if err != nil {
			return nil, err
		}
		return &File{Kind: kind, Suite: s}, nil
	default:
		return nil, fmt.Errorf("%s:%d: kind: %q is not known (valid: %s, or no kind for a VM campaign)", path, head.Kind.Line, kind, SuiteKind)
	}
}
