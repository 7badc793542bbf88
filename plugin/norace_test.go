//go:build !race

package plugin

const raceEnabled = false
