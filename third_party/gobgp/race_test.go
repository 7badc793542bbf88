//go:build race

package gobgp_test

// raceEnabled: the tests run under the race detector.
const raceEnabled = true
