package workload

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

var (
	mu    sync.RWMutex
	tools = map[string]Tool{}
)

// Register adds t under its Descriptor's Name. It is called from the
// tool package's init() and panics on an empty or duplicate name (a
// programming error, found when the binary starts).
func Register(t Tool) {
	name := t.Describe().Name
	mu.Lock()
	defer mu.Unlock()
	if name == "" {
		panic("workload: Register of a tool with no name")
	}
	if _, dup := tools[name]; dup {
		panic("workload: Register of " + name + " twice")
	}
	tools[name] = t
}

// Lookup returns the tool registered as name, or an error that lists the
// registered ones.
func Lookup(name string) (Tool, error) {
	mu.RLock()
	t, ok := tools[name]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%q is not a known tool (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return t, nil
}

// Names returns the registered tools' names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Tools returns the registered tools, sorted by name.
func Tools() []Tool {
	var ts []Tool
	for _, n := range Names() {
		t, _ := Lookup(n)
		ts = append(ts, t)
	}
	return ts
}
