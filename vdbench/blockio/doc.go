// Package blockio is vmbench's block-I/O engine: it runs the expanded
// runs of a vdbench parameter file (parmfile.Run) on block devices and
// files, point by point, and returns what each point measured (Execute,
// CurveResult).
//
// OpenTarget opens an SD's lun (O_DIRECT unless openflags= says
// otherwise) after the safety checks: in use, mounted, a partition table
// or file-system signature (Signature), a file vmbench did not make (its
// label: owner.go). A missing or short file is created and preformatted
// (CheckSpace, CreateFiles); CheckTargets checks every target of a set of
// runs without changing any. Each point runs one oltp.Run per SD from a
// common start, with one of two I/O engines (Engines): psync, a blocking
// pread/pwrite per thread, or io_uring, one ring per SD. With
// Options.StartAt the points start on a grid common to several processes
// (PointGap, PlanLength). The engine prints vdbench-style interval lines
// (WriteIntervals renders them from a Result; ProgressWriter reads them
// into progress lines). CheckBounds refuses runs this host cannot hold
// (HostLimits) before anything is opened.
//
// Linux runs all of it; Windows opens existing regular files only
// (target_windows.go) and has no io_uring; other systems refuse every
// target. docs/vdbench.md describes the targets' safety checks, the I/O
// engines and what each platform runs.
package blockio
