//go:build race

package tcpao

const raceEnabled = true
