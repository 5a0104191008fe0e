package vsphere

import (
	"context"
	"errors"
	"fmt"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// teardown removes what one failed Provision call created. It runs on its
// own context: ctx may be the cancelled one.
func (s *Session) teardown(ctx context.Context, p *plan, tr *tracker, say func(string, ...any)) error {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()

	tr.mu.Lock()
	pending := make(map[string]*object.Task, len(tr.pending))
	for k, v := range tr.pending {
		pending[k] = v
	}
	unacked := tr.unacked
	tr.mu.Unlock()

	refs := map[types.ManagedObjectReference]target{}
	tr.do(func() {
		for name, ref := range tr.vms {
			refs[ref] = target{name, p.datastoreOf(name)}
		}
	})
	// Clones whose outcome we stopped waiting for: wait now.
	for name, t := range pending {
		if info, err := t.WaitForResult(tctx); err == nil {
			if ref, ok := info.Result.(types.ManagedObjectReference); ok {
				refs[ref] = target{name, p.datastoreOf(name)}
			}
		}
	}
	// Clone requests cut off mid-call may still have reached vSphere: give
	// them time to show up as tasks on the template, and wait for those.
	if unacked > 0 {
		p.spec.settled(tctx)
		s.waitRecentTasks(tctx, p.template.Reference())
	}
	// Anything else this call created carries its campaign and call id.
	swept, err := s.list(tctx, func(e map[string]string) bool {
		return e[KeyCampaign] == p.spec.CampaignID && e[KeyProvision] == p.token
	})
	if err != nil {
		err = fmt.Errorf("teardown: find VMs of campaign %s: %w", p.spec.CampaignID, err)
	}
	for _, vm := range swept {
		refs[types.ManagedObjectReference{Type: "VirtualMachine", Value: vm.MoRef}] = target{vm.Name, vm.Datastore}
	}
	if len(refs) == 0 {
		return err
	}
	say("teardown: removing %d VM(s) of campaign %s", len(refs), p.spec.CampaignID)
	n, derr := s.destroyRefsLimit(tctx, refs, p.spec.Parallel, say) // the bound the clones kept
	if derr != nil {
		derr = fmt.Errorf("teardown removed %d of %d VM(s) of campaign %s; remove the rest with `vmbench vsphere destroy --campaign %s`: %w",
			n, len(refs), p.spec.CampaignID, p.spec.CampaignID, derr)
	}
	return errors.Join(err, derr)
}

// waitRecentTasks waits for the unfinished tasks in ref's recentTask.
func (s *Session) waitRecentTasks(ctx context.Context, ref types.ManagedObjectReference) {
	var me mo.VirtualMachine
	if err := s.Client.RetrieveOne(ctx, ref, []string{"recentTask"}, &me); err != nil {
		return
	}
	for _, tref := range me.RecentTask {
		_, _ = object.NewTask(s.Client.Client, tref).WaitForResult(ctx)
	}
}

// datastoreOf returns the datastore Provision chose for VM name.
func (p *plan) datastoreOf(name string) string {
	for i, n := range p.names {
		if n == name {
			return p.spec.Datastores[i%len(p.spec.Datastores)]
		}
	}
	return ""
}
