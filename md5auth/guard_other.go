//go:build !linux

package md5auth

import "errors"

var errNoGuards = errors.New("md5auth: link-local guards need Linux")

// SetListenerGuards is not available here.
func (ProcessSockets) SetListenerGuards(uint16, []Guard) error { return errNoGuards }
