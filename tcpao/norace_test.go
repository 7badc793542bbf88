//go:build !race

package tcpao

const raceEnabled = false
