package shadow

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// nsPin is the network namespace a Runner started in, so that on-demand
// captures, opened later from whichever goroutine (and OS thread) calls
// Demand, capture there: a packet socket belongs to the namespace of the
// thread that made it.
type nsPin struct {
	fd       int // -1: none pinned, open in the caller's namespace
	dev, ino uint64
}

var noNS = nsPin{fd: -1}

const threadNetNS = "/proc/thread-self/ns/net"

// pinNS pins the calling thread's network namespace.
func pinNS() (nsPin, error) {
	fd, err := unix.Open(threadNetNS, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return noNS, fmt.Errorf("open %s: %w", threadNetNS, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return noNS, fmt.Errorf("fstat %s: %w", threadNetNS, err)
	}
	return nsPin{fd: fd, dev: st.Dev, ino: st.Ino}, nil
}

// do runs fn in the pinned namespace, on a thread of its own. When the
// thread is in that namespace already (the daemon's case) nothing changes;
// otherwise the thread joins it (setns, which needs CAP_SYS_ADMIN) and is
// discarded after fn.
func (p nsPin) do(fn func() error) error {
	if p.fd < 0 {
		return fn()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var st unix.Stat_t
		if err := unix.Stat(threadNetNS, &st); err == nil && st.Dev == p.dev && st.Ino == p.ino {
			defer runtime.UnlockOSThread()
			errc <- fn()
			return
		}
		if err := unix.Setns(p.fd, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread() // the thread is unchanged
			errc <- fmt.Errorf("shadow: joining the network namespace the checker started in: %w", err)
			return
		}
		// Never unlocked: the thread's namespace changed, so the
		// runtime throws the thread away when this goroutine ends.
		errc <- fn()
	}()
	return <-errc
}

func (p *nsPin) close() {
	if p.fd >= 0 {
		unix.Close(p.fd)
		p.fd = -1
	}
}
