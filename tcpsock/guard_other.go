//go:build !linux

package tcpsock

import "errors"

var errNoGuards = errors.New("tcpsock: link-local guards need Linux")
