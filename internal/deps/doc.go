// Package deps holds the tests of the repository as a whole: the import
// rules (which vmbench packages each package may import), which
// docs/architecture.md's table is checked against; the documents'
// links, and the documents the code cites; and the test that the vmbench
// binary cross-builds for the agent's other guests (windows/amd64,
// linux/arm64). It has no code.
package deps
