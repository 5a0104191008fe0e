package vsphere

import (
	"context"
	"errors"
	"fmt"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// RemoveVMs powers off and destroys the VMs a List call returned (found by
// MoRef), for garbage collection of leaked VMs. Each VM is read again
// first and left alone, with a progress line and without counting it,
// when it no longer carries the campaign id it was listed with (KeyCampaign)
// or has become a template; a VM listed without a campaign id is refused.
// A VM already gone (another client destroyed it since the listing)
// counts as removed. It returns how many of vms are gone and the joined
// errors of those that are not. progress (may be nil) gets one line per
// VM, one call at a time.
func (s *Session) RemoveVMs(ctx context.Context, vms []VM, progress func(string)) (int, error) {
	say := sayer(progress)
	var errs []error
	gone := 0
	refs := map[types.ManagedObjectReference]target{}
	for _, vm := range vms {
		if !campaignRe.MatchString(vm.CampaignID) {
			errs = append(errs, fmt.Errorf("vm %s: campaign id %q is empty or malformed: left alone", vm.Name, vm.CampaignID))
			continue
		}
		ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: vm.MoRef}
		var m mo.VirtualMachine
		err := s.Client.RetrieveOne(ctx, ref, []string{"config.template", "config.extraConfig", "summary.config.vmPathName"}, &m)
		switch {
		case fault.Is(err, &types.ManagedObjectNotFound{}):
			gone++
			say("%s: already gone", vm.Name)
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("vm %s: read it again before removing it: %w", vm.Name, s.cfg.redact(err)))
			continue
		case m.Config == nil || m.Config.Template || extraConfig(m.Config.ExtraConfig)[KeyCampaign] != vm.CampaignID:
			say("%s: no longer a VM of campaign %s (its tag changed, or it is a template now): left alone", vm.Name, vm.CampaignID)
			continue
		}
		refs[ref] = target{vm.Name, datastoreOf(m.Summary.Config.VmPathName)}
	}
	n, err := s.destroyRefs(ctx, refs, say)
	return gone + n, errors.Join(append(errs, err)...)
}
