//go:build linux

package srv6policy

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mdlayher/genetlink"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// transport is what nlConn needs of a netlink connection: a *netlink.Conn
// (route netlink; nltest in tests) or a genlTransport (generic netlink;
// genltest in tests).
type transport interface {
	Send(netlink.Message) (netlink.Message, error)
	Receive() ([]netlink.Message, error)
	SetReadDeadline(time.Time) error
	Close() error
}

// genlTransport sends netlink messages whose data is a generic netlink
// message through a *genetlink.Conn.
type genlTransport struct{ c *genetlink.Conn }

func (g genlTransport) Send(m netlink.Message) (netlink.Message, error) {
	var gm genetlink.Message
	if err := gm.UnmarshalBinary(m.Data); err != nil {
		return netlink.Message{}, err
	}
	return g.c.Send(gm, uint16(m.Header.Type), m.Header.Flags)
}

func (g genlTransport) Receive() ([]netlink.Message, error) {
	_, msgs, err := g.c.Receive()
	return msgs, err
}

func (g genlTransport) SetReadDeadline(t time.Time) error { return g.c.SetReadDeadline(t) }
func (g genlTransport) Close() error                      { return g.c.Close() }

// nlConn is a netlink connection to the kernel, shared by the SEG6 generic
// netlink client (keys, tunnel source) and the route client: a request,
// then its answers until the ack, the reply or the end of the dump, each
// exchange bounded by recvTimeout.
type nlConn struct {
	t transport // nil once closed
	// wipe clears the answers after use: SEG6 dumps carry secrets.
	wipe bool
}

// dialNetlink opens a netlink socket of protocol proto in the calling
// thread's network namespace, with option set (best effort: old kernels
// lack some).
func dialNetlink(proto int, what string, option netlink.ConnOption) (*netlink.Conn, error) {
	c, err := netlink.Dial(proto, nil)
	if err != nil {
		return nil, fmt.Errorf("srv6policy: %s socket: %w", what, err)
	}
	_ = c.SetOption(option, true)
	return c, nil
}

// close closes the connection once.
func (c *nlConn) close() error {
	if c.t == nil {
		return nil
	}
	err := c.t.Close()
	c.t = nil
	return err
}

// exchange sends m and hands each answer with its sequence number to fn
// (nil: none expected), until the ack (m asks for one), the end of the
// dump (m is a dump) or the reply. Answers to an earlier, abandoned request
// are skipped. Error acks come back as a *netlink.OpError wrapping the
// errno. The first error of fn is returned after the exchange ends.
func (c *nlConn) exchange(m netlink.Message, fn func(netlink.Message) error) error {
	// Only the real socket has deadlines; nltest's has none (and needs none).
	_ = c.t.SetReadDeadline(time.Now().Add(recvTimeout))
	req, err := c.t.Send(m)
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	ack := m.Header.Flags&netlink.Acknowledge != 0
	dump := m.Header.Flags&netlink.Dump == netlink.Dump
	var cbErr error
	for {
		msgs, err := c.t.Receive()
		if err != nil {
			return recvErr(err)
		}
		// Receive reads a whole dump and drops its NLMSG_DONE: an empty
		// batch is an empty dump.
		done := dump && len(msgs) == 0
		for _, a := range msgs {
			if a.Header.Sequence != req.Header.Sequence {
				continue // a stale answer to an earlier, abandoned request
			}
			switch a.Header.Type {
			case netlink.Noop:
				continue
			case netlink.Error, netlink.Done: // an ack: error acks are errors of Receive
				done = true
				continue
			}
			done = done || !ack
			if fn != nil && cbErr == nil {
				cbErr = fn(a)
			}
			if c.wipe {
				clear(a.Data)
			}
		}
		if done {
			return cbErr
		}
	}
}

// recvErr turns an error of Receive into ours: an error ack into a
// netlinkError, a timeout into one wrapping os.ErrDeadlineExceeded.
func recvErr(err error) error {
	var oe *netlink.OpError
	if errors.As(err, &oe) {
		if errno, ok := oe.Err.(unix.Errno); ok {
			return &netlinkError{errno: errno, msg: oe.Message}
		}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no answer from the kernel in %v: %w", recvTimeout, os.ErrDeadlineExceeded)
	}
	return fmt.Errorf("receive: %w", err)
}

// netlinkError is an error ack: the errno and the kernel's message.
type netlinkError struct {
	errno unix.Errno
	msg   string
}

func (e *netlinkError) Error() string {
	if e.msg != "" {
		return e.errno.Error() + " (" + e.msg + ")"
	}
	return e.errno.Error()
}

func (e *netlinkError) Unwrap() error { return e.errno }
