package guestimage

import (
	"regexp"
	"strings"
	"testing"
)

// TestFindWithoutDocker: where no docker command is on PATH, Find says so
// and what to install, before anything else.
func TestFindWithoutDocker(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Find(t.Context(), "any:image", nil)
	if err == nil || !strings.Contains(err.Error(), "no docker command (apt-get install docker.io") {
		t.Fatalf("Find without docker: %v", err)
	}
}

// TestRecipeTag: the tag of the recipe in the checkout (this package's
// directory is in it) is vmbench-guest:<12 hex digits>.
func TestRecipeTag(t *testing.T) {
	tag, err := RecipeTag(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^vmbench-guest:[0-9a-f]{12}$`).MatchString(tag) {
		t.Errorf("recipe tag %q", tag)
	}
}
