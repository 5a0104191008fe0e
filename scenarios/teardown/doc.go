// Package teardown cleans up what a campaign left, driven from its
// results directory: Run removes the objects its manifest lists as
// created and not removed (`vmbench campaign teardown`), and
// ProbeCampaign, DecideGC and LockCampaign tell which tagged VMs
// `vmbench vsphere gc` may destroy and hold their campaign off while it
// does. It reads the records of package rundir and never the engine's
// state: package scenarios calls it, not the other way round.
package teardown
