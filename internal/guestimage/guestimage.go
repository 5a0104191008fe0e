// Package guestimage finds the docker image of container-backed guests
// (the Linux guest `make guest-image` builds from images/guest) and checks
// that docker can run it: a docker command, a daemon that answers, and the
// image present. Campaigns with --guests container and the tests of
// container-backed vcsim VMs (internal/containertest) both look it up here.
//
// The image is the one named explicitly, else $VMBENCH_GUEST_IMAGE, else
// the tag images/guest/build.sh --tag prints (the recipe's digest), found
// in the module at or above the working directory: a stale image left by
// an older recipe is never used.
package guestimage

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// EnvImage names an environment variable that, when set, is the docker
// image to use instead of the one the recipe in images/guest makes.
const EnvImage = "VMBENCH_GUEST_IMAGE"

// Build is the command that builds the recipe's image, for messages.
const Build = "make guest-image"

// probeTimeout bounds each command Find runs (a daemon that hangs must
// not hang its caller).
const probeTimeout = 30 * time.Second

// Find returns the guest image's tag: explicit when not "", else the
// value of EnvImage read with getenv, else the recipe's tag
// (images/guest/build.sh --tag in the module at or above the working
// directory). It checks that a docker command exists, that its daemon
// answers and that the image is there. Each error says which of these is
// missing and what to do (install docker.io, start dockerd, run make
// guest-image, set VMBENCH_GUEST_IMAGE).
func Find(ctx context.Context, explicit string, getenv func(string) string) (string, error) {
	if _, err := exec.LookPath("docker"); err != nil {
		return "", errors.New("no docker command (apt-get install docker.io and start dockerd as root)")
	}
	if _, err := docker(ctx, "info", "--format", "{{.ServerVersion}}"); err != nil {
		return "", fmt.Errorf("the docker daemon does not answer (start dockerd as root): %w", err)
	}
	tag, from := explicit, ""
	if tag == "" && getenv != nil {
		tag, from = getenv(EnvImage), " ($"+EnvImage+")"
	}
	if tag == "" {
		var err error
		if tag, err = RecipeTag(ctx); err != nil {
			return "", err
		}
		from = " (the recipe in images/guest)"
	}
	if _, err := docker(ctx, "image", "inspect", "--format", "{{.Id}}", tag); err != nil {
		return "", fmt.Errorf("image %s%s is not built: run %s (about 6 min), or name a built image with %s: %w", tag, from, Build, EnvImage, err)
	}
	return tag, nil
}

// RecipeTag is the tag images/guest/build.sh --tag prints, the script
// found in the module at or above the working directory.
func RecipeTag(ctx context.Context) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	script := filepath.Join(root, "images", "guest", "build.sh")
	out, err := exec.CommandContext(ctx, "bash", script, "--tag").Output()
	if err != nil {
		return "", fmt.Errorf("%s --tag: %w%s", script, err, stderrOf(err))
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleRoot is the nearest directory at or above the working directory
// (a test's is its package's) that holds go.mod and images/guest.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "images", "guest", "build.sh")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no vmbench checkout (go.mod and images/guest/build.sh) at or above the working directory: run from the checkout, or name the image with %s", EnvImage)
		}
		dir = parent
	}
}

// Containers returns the names of the containers, running or not, that
// vcsim made for VMs whose names start with vmPrefix: it names each
// vcsim-<VM name>-<VM uuid>, and removes it when the VM is destroyed or
// the simulator closes, so one left is a killed simulator's (or another
// simulator's that runs VMs of the same names: vcsim derives the uuid
// from the VM's file path, so the same names on the same datastores clash).
func Containers(ctx context.Context, vmPrefix string) ([]string, error) {
	out, err := docker(ctx, "ps", "-a", "--format", "{{.Names}}", "--filter", "name=^vcsim-"+vmPrefix)
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

// docker runs the docker command with args, bounded by probeTimeout, and
// returns its standard output.
func docker(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
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

// CampaignEnv is the variable a container-backed guest carries its
// campaign's id in: vcsim passes each guestinfo.<key> of its VM's
// ExtraConfig to the container as VMX_GUESTINFO_<KEY> (upper-cased, dots
// as underscores), and campaigns set guestinfo.vmbench.campaign to the
// id, base64-encoded as every value the guest image reads.
const CampaignEnv = "VMX_GUESTINFO_VMBENCH_CAMPAIGN"

// CampaignInfoKey is the guestinfo key (without "guestinfo.") whose value
// reaches the container as CampaignEnv.
const CampaignInfoKey = "vmbench.campaign"

// RemoveCampaignContainers removes (docker rm -f, with their anonymous
// volumes) the containers vcsim made for the VM named vm of campaign
// (their CampaignEnv is campaign's id, base64-encoded), running or not,
// and returns their names; containers of the same VM name that another
// campaign runs are left alone. An error is docker's.
func RemoveCampaignContainers(ctx context.Context, vm, campaign string) ([]string, error) {
	names, err := Containers(ctx, regexp.QuoteMeta(vm)+"-")
	if err != nil {
		return nil, err
	}
	want := CampaignEnv + "=" + base64.StdEncoding.EncodeToString([]byte(campaign))
	var removed []string
	for _, n := range names {
		env, err := docker(ctx, "inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", n)
		if err != nil {
			return removed, err
		}
		if !slices.Contains(strings.Split(env, "\n"), want) {
			continue
		}
		if _, err := docker(ctx, "rm", "-f", "-v", n); err != nil {
			return removed, err
		}
		removed = append(removed, n)
	}
	return removed, nil
}
