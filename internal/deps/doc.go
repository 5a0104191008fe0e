// Package deps holds the test that enforces DESIGN.md's import rules:
// which vmbench packages each package may import; and the test that the
// vmbench binary cross-builds for the agent's other guests (windows/amd64,
// linux/arm64). It has no code.
package deps
