// Package scenarios runs campaigns: preflight, provisioning, a database
// per VM, prepare, a common start, precondition, measure, collection,
// aggregation across VMs, the review table, and teardown. Their files are
// read by package spec, the records a campaign leaves in its results
// directory are package rundir's, its review (the reports rendered from
// them) is package review's, its pre-built data sets (made by
// PrepareData, restored before each run) are package dataset's,
// where each VM's workload runs (here, or in its guest through the
// agent) is package vmdriver's, the live per-interval table across VMs
// printed during a run is package live's, and the cleanup of what a
// campaign left, driven from its results directory (`campaign teardown`,
// `vsphere gc`), is package teardown's. A block suite on this host's
// drives is package blocksuite's; one in VMs runs here. It names workloads
// by tool, name and flags; the workload code itself is reached through
// the workload contract (package workload): the tool from the registry,
// its flags parsed once into a typed Config.
package scenarios
