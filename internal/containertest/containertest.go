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
func Image(t testing.TB) string {
	t.Helper()
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
