package vsphere

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/vmware/govmomi/vim25/types"
)

// DestroyVMs powers off and destroys the VMs that carry campaignID and
// whose names are in names, and nothing else: the VMs a campaign's record
// lists (a VM of that name without the tag, or with another campaign's,
// is left alone). A name with no such VM is not an error: it was never
// created, or is gone already. It returns how many VMs it destroyed.
func (s *Session) DestroyVMs(ctx context.Context, campaignID string, names []string, progress func(string)) (int, error) {
	return s.destroyMatching(ctx, campaignID, func(vm VM) bool { return slices.Contains(names, vm.Name) }, progress)
}

// destroyMatching destroys the VMs of campaignID that keep accepts (all
// of them when keep is nil).
func (s *Session) destroyMatching(ctx context.Context, campaignID string, keep func(VM) bool, progress func(string)) (int, error) {
	if !campaignRe.MatchString(campaignID) {
		return 0, fmt.Errorf("destroy: campaign id %q is empty or malformed: name one campaign (1-64 letters, digits, '.', '_' or '-')", campaignID)
	}
	vms, err := s.List(ctx, campaignID)
	if err != nil {
		return 0, fmt.Errorf("destroy: find VMs of campaign %s: %w", campaignID, err)
	}
	refs := map[types.ManagedObjectReference]target{}
	for _, vm := range vms {
		if keep == nil || keep(vm) {
			refs[types.ManagedObjectReference{Type: "VirtualMachine", Value: vm.MoRef}] = target{vm.Name, vm.Datastore}
		}
	}
	return s.destroyRefs(ctx, refs, sayer(progress))
}

// sayer returns a printf-style func that hands progress (may be nil) one
// formatted line at a time, whichever goroutine calls it.
func sayer(progress func(string)) func(string, ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		if progress != nil {
			mu.Lock()
			defer mu.Unlock()
			progress(fmt.Sprintf(format, args...))
		}
	}
}
