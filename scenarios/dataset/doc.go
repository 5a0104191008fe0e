// Package dataset keeps pre-built data sets: a workload's data loaded and
// checked once (`vmbench campaign prepare-data`), then restored into each
// VM's database before each run instead of loaded again, the way the
// review protocol keeps a pristine copy of the database under test.
//
// A data set is its key file, <data.dir>/<key ID>.json (Set, written
// last by Write), named by its key (NewKey: the workload's data shape,
// the engine, the layout vDisk it is saved from, Disk); Find and
// FindAnyEngine find the one of a key, Check refuses a campaign file's
// data: block that cannot work. Its data is an SQLite file or a database
// on a server (Load, Present, Restore) or, on vSphere, a vDisk on each
// datastore with the key file beside it (Save, MissingOn, Complete); the
// in-process simulator's datastore files are kept in the data directory
// between processes (SimDir, SeedSim).
//
// It runs no campaign: the campaign engine (package scenarios) provisions
// the loader VM, places the databases, records what it creates and calls
// this package for the data set's part, passing in what its environment
// chose (the database server, whether the databases are in the guests).
package dataset
