// Package deps holds the test that enforces DESIGN.md's import rules:
// which vmbench packages each package may import. It has no code.
package deps
