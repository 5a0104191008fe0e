package spec

import (
	"errors"
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// ReviewKind is the kind: of a review file (Review).
const ReviewKind FileKind = "review"

// Review is a review file: the campaign files run one after the other on
// one server into one review directory (RunReview), e.g.
// scenarios/review-full.yaml. It is YAML, decoded strictly.
type Review struct {
	Kind        FileKind `yaml:"kind"`
	Name        string   `yaml:"name"`
	Description string   `yaml:"description,omitempty"`
	// OnFailure is what a failed campaign does to the review: stop (the
	// default: the campaigns after it do not run) or continue.
	OnFailure ReviewFailure    `yaml:"on-failure,omitempty"`
	Campaigns []ReviewCampaign `yaml:"campaigns"`

	// Raw is the file as read, which review run keeps as review.yaml.
	Raw []byte `yaml:"-"`

	path string // the file, for messages and relative campaign paths
	// sources are the merged texts of the campaigns with an override, by
	// index, kept by Load so that later errors (Check's) name the lines
	// they came from (Explain).
	sources map[int]*mergedSource
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

// ReviewFailure is what a failed campaign does to its review: ReviewStop
// or ReviewContinue, written as the review file's on-failure:
// (Review.OnFailure; LoadReview makes "" ReviewStop).
type ReviewFailure string

// The failure policies of a review.
const (
	ReviewStop     ReviewFailure = "stop"
	ReviewContinue ReviewFailure = "continue"
)

var reviewSections = map[string]section{
	"Review":         {name: "the top level", v: Review{}},
	"ReviewCampaign": {name: "a campaigns: entry", v: ReviewCampaign{}},
}

// LoadReview reads and checks the review file at path: kind review, a
// name fit for a directory, at least one campaign, on-failure stop or
// continue, and every campaign file readable with its override (LoadAny's
// checks). Errors name the file and the line, as a campaign file's do.
func LoadReview(path string) (*Review, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	rf := &Review{path: path, Raw: b}
	src, err := decodeFile(path, b, rf, "review file", reviewSections)
	if err != nil {
		return nil, err
	}
	var errs []error
	if rf.Kind != ReviewKind {
		errs = append(errs, src.Errorf("kind", "kind: %q, want %q (a campaign file is run with 'vmbench campaign run')", rf.Kind, ReviewKind))
	}
	if !campaignName.MatchString(rf.Name) {
		errs = append(errs, src.Errorf("name", "name: %q must be 1-40 letters, digits, '.', '_' or '-' (it names the review directory)", rf.Name))
	}
	switch rf.OnFailure {
	case "":
		rf.OnFailure = ReviewStop
	case ReviewStop, ReviewContinue:
	default:
		errs = append(errs, src.Errorf("on-failure", "on-failure: %q is not stop or continue", rf.OnFailure))
	}
	if len(rf.Campaigns) == 0 {
		errs = append(errs, src.Errorf("campaigns", "campaigns: none listed"))
	}
	for i := range rf.Campaigns {
		if _, err := rf.Load(i); err != nil {
			errs = append(errs, fmt.Errorf("%scampaigns[%d]: %w", src.At(fmt.Sprintf("campaigns.%d.file", i)), i, err))
		}
	}
	return rf, errors.Join(errs...)
}

// CampaignPath is the path of campaign i's file.
func (rf *Review) CampaignPath(i int) string {
	f := rf.Campaigns[i].File
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(filepath.Dir(rf.path), f)
}

// Load reads campaign i's file with its override merged over it. An
// error names the campaign file's line, or the review file's line of the
// override, that it is about (Explain).
func (rf *Review) Load(i int) (*File, error) {
	c := rf.Campaigns[i]
	path := rf.CampaignPath(i)
	if c.Override.Kind == 0 {
		return LoadAny(path)
	}
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	m, err := mergeOverride(path, b, rf.path, &c.Override)
	if err != nil {
		return nil, err
	}
	if rf.sources == nil {
		rf.sources = map[int]*mergedSource{}
	}
	rf.sources[i] = m
	f, err := loadAnyBytes(m.label, m.text)
	return f, m.explain(err)
}

// Explain rewrites an error about campaign i as loaded (Load), such as
// Check's, so that the lines it names are the campaign file's or the
// review file's override's rather than the merged text's; err is
// returned as it is for a campaign without an override.
func (rf *Review) Explain(i int, err error) error {
	return rf.sources[i].explain(err)
}
