package config

// DefaultFIBEnabled is [fib] enabled when absent: a router container
// forwards, so its best paths go into the kernel.
const DefaultFIBEnabled = true

// FIB is the [fib] table: GoBGP's best paths in the kernel's routing
// tables (package fib).
type FIB struct {
	// Enabled: best paths (IPv4 and IPv6 unicast) go into the kernel's
	// table of their VRF (the main table for the default VRF), with
	// protocol bgp (186). false for a route server or a controller that
	// does not forward.
	Enabled bool
	// Multipath: the best paths of equal preference (GoBGP's
	// use-multiple-paths) go in as one ECMP route; false: the best path.
	Multipath bool
	Line      int
	m         meta
}

// LineOf returns the line of key in [fib], or the table's line.
func (f *FIB) LineOf(key string) int { return f.m.lineOf(key, f.Line) }

// fib decodes [fib].
func (d *decoder) fib(rt *table, f *FIB) {
	t, _ := rt.subTable("fib", "[fib]", &f.m)
	f.Line = t.line
	f.Enabled = DefaultFIBEnabled
	if b, ok := t.boolean("enabled"); ok {
		f.Enabled = b
	}
	if b, ok := t.boolean("multipath"); ok {
		f.Multipath = b
	}
	t.finish()
}
