package scenarios

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// ReviewKind is the kind: of a review file (ReviewFile).
const ReviewKind = "review"

// ReviewFile is a review: the campaign files run one after the other on
// one server into one review directory (RunReview), e.g.
// scenarios/review-full.yaml. It is YAML, decoded strictly.
type ReviewFile struct {
	Kind        string `yaml:"kind"`
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	// OnFailure is what a failed campaign does to the review: stop (the
	// default: the campaigns after it do not run) or continue.
	OnFailure string           `yaml:"on-failure,omitempty"`
	Campaigns []ReviewCampaign `yaml:"campaigns"`

	path string // the file, for messages and relative campaign paths
}

// ReviewCampaign is one campaign of a review: a campaign or block-suite
// file and what to change in it.
type ReviewCampaign struct {
	// File is the campaign file, relative to the review file.
	File string `yaml:"file"`
	// Override is YAML merged over the campaign file before it is read:
	// mappings merge key by key, any other value replaces the file's
	// (override: {simulate: {vms: {count: 2}}}). The campaign file's own
	// checks then apply to the result.
	Override yaml.Node `yaml:"override,omitempty"`
}

// Review failure policies (ReviewFile.OnFailure).
const (
	ReviewStop     = "stop"
	ReviewContinue = "continue"
)

var reviewSections = map[string]section{
	"ReviewFile":     {name: "the top level", v: ReviewFile{}},
	"ReviewCampaign": {name: "a campaigns: entry", v: ReviewCampaign{}},
}

// LoadReview reads and checks the review file at path: kind review, a
// name fit for a directory, at least one campaign, on-failure stop or
// continue, and every campaign file readable with its override (LoadAny's
// checks). Errors name the file.
func LoadReview(path string) (*ReviewFile, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	rf := &ReviewFile{path: path}
	if _, err := decodeFile(path, b, rf, "review file", reviewSections); err != nil {
		return nil, err
	}
	var errs []error
	if rf.Kind != ReviewKind {
		errs = append(errs, fmt.Errorf("%s: kind: %q, want %q (a campaign file is run with 'vmbench campaign run')", path, rf.Kind, ReviewKind))
	}
	if !campaignName.MatchString(rf.Name) {
		errs = append(errs, fmt.Errorf("%s: name: %q must be 1-40 letters, digits, '.', '_' or '-' (it names the review directory)", path, rf.Name))
	}
	switch rf.OnFailure {
	case "":
		rf.OnFailure = ReviewStop
	case ReviewStop, ReviewContinue:
	default:
		errs = append(errs, fmt.Errorf("%s: on-failure: %q is not stop or continue", path, rf.OnFailure))
	}
	if len(rf.Campaigns) == 0 {
		errs = append(errs, fmt.Errorf("%s: campaigns: none listed", path))
	}
	for i := range rf.Campaigns {
		if _, err := rf.Load(i); err != nil {
			errs = append(errs, fmt.Errorf("%s: campaigns[%d]: %w", path, i, err))
		}
	}
	return rf, errors.Join(errs...)
}

// CampaignPath is the path of campaign i's file.
func (rf *ReviewFile) CampaignPath(i int) string {
	f := rf.Campaigns[i].File
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(filepath.Dir(rf.path), f)
}

// Load reads campaign i's file with its override merged over it.
func (rf *ReviewFile) Load(i int) (*File, error) {
	c := rf.Campaigns[i]
	path := rf.CampaignPath(i)
	if c.Override.Kind == 0 {
		return LoadAny(path)
	}
	var over map[string]any
	if err := c.Override.Decode(&over); err != nil {
		return nil, fmt.Errorf("override (line %d): %w", c.Override.Line, err)
	}
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	merged, err := yaml.Marshal(mergeYAML(doc, over))
	if err != nil {
		return nil, err
	}
	return loadAnyBytes(path+" (with the review's override)", merged)
}

// mergeYAML merges over onto base: mappings key by key, recursively; any
// other value of over replaces base's.
func mergeYAML(base, over map[string]any) map[string]any {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]any{}
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeYAML(bm, om)
			continue
		}
		out[k] = v
	}
	return out
}
