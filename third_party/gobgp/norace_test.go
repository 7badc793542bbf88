//go:build !race

package gobgp_test

// raceEnabled says whether the tests run under the race detector.
const raceEnabled = false
