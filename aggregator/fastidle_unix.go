//go:build unix

package aggregator

import (
	"crypto/tls"
	"net"
	"syscall"
)

// idlePeek looks at the socket of an idle connection (made once per
// connection, so that a look allocates nothing).
type idlePeek struct {
	rc       syscall.RawConn // nil: no socket to look at
	err      error           // SyscallConn's error
	peek     func(fd uintptr) bool
	b        [1]byte
	unusable bool
}

// newIdlePeek returns the look at c's socket.
func newIdlePeek(c net.Conn) *idlePeek {
	p := &idlePeek{}
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return p
	}
	p.rc, p.err = sc.SyscallConn()
	p.peek = p.look
	return p
}

// look is the recv with MSG_PEEK on the non-blocking descriptor: n > 0,
// bytes unasked; n == 0 without error, the archive closed it; EAGAIN,
// nothing to read, the connection is usable.
func (p *idlePeek) look(fd uintptr) bool {
	n, _, rerr := syscall.Recvfrom(int(fd), p.b[:], syscall.MSG_PEEK)
	p.unusable = n > 0 || rerr == nil || rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK && rerr != syscall.EINTR
	return true
}

// idleUnusable reports whether the idle connection has bytes waiting to
// be read or was closed by its archive: a look at its socket that reads
// nothing. Bytes that came while no request was asked are no answer to
// the next request; a connection whose archive closed it would only
// fail it.
func (p *idlePeek) idleUnusable() bool {
	if p.err != nil {
		return true
	}
	if p.rc == nil {
		return false
	}
	p.unusable = false
	err := p.rc.Read(p.peek)
	return p.unusable || err != nil
}
