//go:build !linux

package tcpsock

import "errors"

var errNoGuards = errors.New("tcpsock: link-local guards need Linux")

// SetListenerGuards is not available here.
func (ProcessSockets) SetListenerGuards(uint16, []Guard) error { return errNoGuards }
