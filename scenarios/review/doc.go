// Package review reads what a campaign saved and builds and renders its
// review: the review table, the reports (report.md, report.csv,
// report.html), comparisons of several results, and the published
// reference figures. Render reads a results directory (run.json,
// campaign.yaml or suite.yaml, the VMs' Results or the block tool's
// records) into a Report; WriteReports writes its reports into the
// directory; ReadInput and BuildDocument lay several results or review
// directories side by side, with a reference (LookupReference) where
// asked. It runs nothing and imports no vSphere: the campaign engine
// (package scenarios) writes the files it reads and calls it to render
// them, as `vmbench report DIR` does. Files are read through package
// spec (the campaign and suite files) and package rundir (the results
// directory's records), the tools' results through the workload
// contract (package workload).
package review
