// Package containertest finds what the tests of container-backed vcsim
// guests need: a docker client whose daemon answers, and the guest image
// that `make guest-image` builds (images/guest). Where either is missing
// the test is skipped with a message that says which and how to get it,
// so `make test` passes on a machine without containers; .ci/run builds
// the image, so CI runs these tests.
//
//	image := containertest.Image(t) // "vmbench-guest:<recipe digest>"
//	sim, _ := vsphere.StartSimulator(ctx, vsphere.SimOptions{GuestImage: image})
//
// The image is looked up by the tag its recipe makes (images/guest/build.sh
// --tag), so a stale image left by an older recipe is never used;
// $VMBENCH_GUEST_IMAGE names another image instead.
package containertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvImage names an environment variable that, when set, is the docker
// image to use instead of the one the recipe in images/guest makes.
const EnvImage = "VMBENCH_GUEST_IMAGE"

// probeTimeout bounds each docker command the probe runs (a daemon that
// hangs must not hang the tests).
const probeTimeout = 30 * time.Second

var (
	once  sync.Once
	image string
	why   string // the reason to skip; "" when image is usable
)

// Image returns the guest image's tag, or skips t saying why there is
// none: no docker command, no daemon answering, or the image not built
// (with the command that builds it). It probes once per test binary.
func Image(t testing.TB) string {
	t.Helper()
	once.Do(func() { image, why = probe() })
	if why != "" {
		t.Skip("container-backed guests: " + why)
	}
	return image
}

// probe finds the image: its tag, or why it cannot be used.
func probe() (tag, reason string) {
	if _, err := exec.LookPath("docker"); err != nil {
		return "", "no docker command (apt-get install docker.io and start dockerd as root)"
	}
	if _, err := docker("info", "--format", "{{.ServerVersion}}"); err != nil {
		return "", fmt.Sprintf("the docker daemon does not answer (start dockerd as root): %v", err)
	}
	tag = os.Getenv(EnvImage)
	if tag == "" {
		var err error
		if tag, err = recipeTag(); err != nil {
			return "", err.Error()
		}
	}
	if _, err := docker("image", "inspect", "--format", "{{.Id}}", tag); err != nil {
		return "", fmt.Sprintf("image %s is not built (run make guest-image, about 6 min): %v", tag, err)
	}
	return tag, ""
}

// recipeTag is the tag images/guest/build.sh --tag prints.
func recipeTag() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	script := filepath.Join(root, "images", "guest", "build.sh")
	out, err := exec.CommandContext(ctx, "bash", script, "--tag").Output()
	if err != nil {
		return "", fmt.Errorf("%s --tag: %w%s", script, err, stderrOf(err))
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleRoot is the nearest directory at or above the working directory
// (a test's is its package's) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: cannot find images/guest")
		}
		dir = parent
	}
}

// docker runs the docker command with args, bounded by probeTimeout, and
// returns its standard output.
func docker(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).Output()
	if err != nil {
		return "", fmt.Errorf("docker %s: %w%s", strings.Join(args, " "), err, stderrOf(err))
	}
	return string(out), nil
}

// stderrOf is ": <first line of stderr>" of a failed command's error, or "".
func stderrOf(err error) string {
	var ee *exec.ExitError
	if !errors.As(err, &ee) || len(ee.Stderr) == 0 {
		return ""
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(ee.Stderr), []byte("\n"))
	return ": " + string(line)
}
