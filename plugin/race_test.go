//go:build race

package plugin

// raceEnabled: the race detector slows GoBGP several times; heavy tests run
// smaller.
const raceEnabled = true
