// Package containertest finds what the tests of container-backed vcsim
// guests need: a docker client whose daemon answers, and the guest image
// that `make guest-image` builds (images/guest), as internal/guestimage
// finds them. Where either is missing the test is skipped with a message
// that says which and how to get it, so `make test` passes on a machine
// without containers; .ci/run builds the image, so CI runs these tests.
//
//	image := containertest.Image(t) // "vmbench-guest:<recipe digest>"
//	sim, _ := vsphere.StartSimulator(ctx, vsphere.SimOptions{GuestImage: image})
//
// The image is looked up by the tag its recipe makes (images/guest/build.sh
// --tag), so a stale image left by an older recipe is never used;
// $VMBENCH_GUEST_IMAGE names another image instead.
package containertest

import (
	"context"
	"os"
	"sync"
	"testing"

	"vmbench/internal/golden"
	"vmbench/internal/guestimage"
)

var (
	once  sync.Once
	image string
	why   string // the reason to skip; "" when image is usable
)

// Image returns the guest image's tag, or skips t saying why there is
// none: no docker command, no daemon answering, or the image not built
// (with the command that builds it). It probes once per test binary.
//
// Under the race detector it skips t too: govmomi v0.56.0's simulator
// races with itself on a container-backed VM (its container watcher
// writes the VM's guest properties, in syncNetworkConfigToVMGuestProperties,
// while a guest operation reads them, in prepareGuestOperation, under
// another lock), which fails any test binary built with -race. The tests
// that call Image are named *NoRace*, so that make test's second step
// runs them without -race; vmbench's own code on these paths (the guest
// driver, the follower, guest.Target) is race-tested on local and
// simulated guests.
func Image(t testing.TB) string {
	t.Helper()
	golden.SkipUnderRace(t, "container-backed guests: vcsim v0.56.0 races with itself on container-backed VMs")
	once.Do(func() {
		var err error
		if image, err = guestimage.Find(context.Background(), "", os.Getenv); err != nil {
			why = err.Error()
		}
	})
	if why != "" {
		t.Skip("container-backed guests: " + why)
	}
	return image
}
