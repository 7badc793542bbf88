//go:build !linux

package shadow

// nsPin pins nothing outside Linux (there is no live capture).
type nsPin struct{}

var noNS = nsPin{}

func pinNS() (nsPin, error) { return noNS, nil }

func (nsPin) do(fn func() error) error { return fn() }

func (*nsPin) close() {}
