// Package rundir is the on-disk format of a campaign's results directory:
// the directory itself (ResultsDir: made exclusively as .incomplete,
// renamed once complete), run.json (RunInfo: how the campaign ran, its
// VMs as provisioned, its harness overhead), the manifest of what the
// campaign created (created.jsonl, Manifest), the journal of its finished
// steps (steps.jsonl, Journal) and the run lock (.lock). Records are
// written atomically or appended and synced before the act they record,
// and read back bounded (package boundedread), so that any end of a
// campaign, kill -9 included, leaves a directory that teardown, resume
// and the reports can read. It imports no vSphere and runs nothing: the
// campaign engine (package scenarios) converts vSphere's values into
// these records.
package rundir
