package vsphere

import (
	"context"
	"fmt"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/types"

	"vmbench/vsphere/guest"
)

// GuestTarget opens a target.Target on the VM whose managed object id is
// moref ("vm-42", VM.MoRef) through VMware Tools guest operations
// (package vsphere/guest): no SSH and no network path to the guest, a
// Windows guest included. The VM must be powered on with Tools running;
// cfg holds the guest account and the working directory, which it
// creates. Its errors name the VM.
func (s *Session) GuestTarget(ctx context.Context, moref string, cfg guest.Config) (*guest.Target, error) {
	if moref == "" {
		return nil, fmt.Errorf("guest operations on %s: the VM has no managed object id", cfg.Name)
	}
	c := s.Client.Client
	vm := object.NewVirtualMachine(c, types.ManagedObjectReference{Type: "VirtualMachine", Value: moref})
	return guest.New(ctx, vm, c, cfg)
}
