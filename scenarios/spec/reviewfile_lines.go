package spec

import (
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// mergedSource is a campaign file with a review's override merged over it
// as text, and where each line of that text came from: the campaign
// file's line, or the review file's line of the override.
type mergedSource struct {
	text   []byte
	label  string         // what the loader calls the merged text
	origin map[int]string // merged line -> "file:line" ("... (override)")
}

// mergeOverride merges override (a mapping node of the review file at
// reviewPath) over the campaign file's YAML base (read from campaignPath)
// node by node: mappings key by key, any other value replaced by the
// override's. It keeps each node's own line, so that an error in the
// merged text can name the line it came from (explain).
func mergeOverride(campaignPath string, base []byte, reviewPath string, override *yaml.Node) (*mergedSource, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", campaignPath, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a YAML mapping", campaignPath)
	}
	override = expandAliases(override)
	if override.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: override: a mapping of the campaign file's keys, not a %s", reviewPath, override.Line, nodeKindName(override))
	}
	fromOverride := map[*yaml.Node]bool{}
	markAll(override, fromOverride)
	mergeNode(doc.Content[0], override)
	text, err := yaml.Marshal(&doc)
	if err != nil {
		return nil, err
	}
	var again yaml.Node
	if err := yaml.Unmarshal(text, &again); err != nil {
		return nil, err
	}
	m := &mergedSource{text: text, label: campaignPath + " (with the review's override)", origin: map[int]string{}}
	var walk func(merged, out *yaml.Node)
	walk = func(merged, out *yaml.Node) {
		at := fmt.Sprintf("%s:%d", campaignPath, merged.Line)
		if fromOverride[merged] {
			at = fmt.Sprintf("%s:%d (the override)", reviewPath, merged.Line)
		}
		if prev, ok := m.origin[out.Line]; !ok || (fromOverride[merged] && prev != at) {
			m.origin[out.Line] = at // a line of both: the override's
		}
		for i := range min(len(merged.Content), len(out.Content)) {
			walk(merged.Content[i], out.Content[i])
		}
	}
	walk(doc.Content[0], again.Content[0])
	return m, nil
}

// expandAliases is a copy of n with each alias replaced by a copy of what
// it names (review-full.yaml's "override: *small") and no anchors, so that
// the merged text stands alone; the copies keep their lines.
func expandAliases(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, sub := range n.Content {
		c.Content[i] = expandAliases(sub)
	}
	return &c
}

// mergeNode merges over into base (both mapping nodes) key by key.
func mergeNode(base, over *yaml.Node) {
	for i := 0; i+1 < len(over.Content); i += 2 {
		k, v := over.Content[i], over.Content[i+1]
		j := mappingIndex(base, k.Value)
		switch {
		case j < 0:
			base.Content = append(base.Content, k, v)
		case base.Content[j+1].Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			mergeNode(base.Content[j+1], v)
		default:
			base.Content[j+1] = v
		}
	}
}

// mappingIndex is the index of key's key node in mapping m, -1 if absent.
func mappingIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// markAll marks n and every node under it in set.
func markAll(n *yaml.Node, set map[*yaml.Node]bool) {
	set[n] = true
	for _, c := range n.Content {
		markAll(c, set)
	}
}

// nodeKindName names a node's kind for messages.
func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	default:
		return "YAML node"
	}
}

// sourceError is an error about merged text, its line numbers rewritten
// to where each line came from; it unwraps to the original.
type sourceError struct {
	msg string
	err error
}

// Error is the message with the merged text's lines rewritten.
func (e *sourceError) Error() string { return e.msg }

// Unwrap is the error about the merged text.
func (e *sourceError) Unwrap() error { return e.err }

// explain rewrites err's references to lines of the merged text ("LABEL:N",
// "line N") as the campaign file's or the review file's line; nil stays
// nil.
func (m *mergedSource) explain(err error) error {
	if err == nil || m == nil {
		return err
	}
	re := regexp.MustCompile(regexp.QuoteMeta(m.label) + `:(\d+)|` + regexp.QuoteMeta(m.label) + `: line (\d+)|\bline (\d+)`)
	msg := re.ReplaceAllStringFunc(err.Error(), func(s string) string {
		sub := re.FindStringSubmatch(s)
		for _, g := range sub[1:] {
			if n, convErr := strconv.Atoi(g); convErr == nil {
				if at, ok := m.origin[n]; ok {
					return at
				}
			}
		}
		return s
	})
	return &sourceError{msg: msg, err: err}
}
