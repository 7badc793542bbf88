//go:build !race

package srv6policy

const raceEnabled = false
