//go:build unix

package aggregator

import (
	"crypto/tls"
	"net"
	"syscall"
)

// idleUnusable reports whether the idle connection c has bytes waiting
// to be read or was closed by its archive: a look at its socket
// (recv with MSG_PEEK on the non-blocking descriptor) that reads nothing.
// Bytes that came while no request was asked are no answer to the next
// request; a connection whose archive closed it would only fail it.
func idleUnusable(c net.Conn) bool {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var b [1]byte
	unusable := false
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK)
		// n > 0: bytes unasked; n == 0 without error: the archive
		// closed it; EAGAIN: nothing to read, the connection is usable.
		unusable = n > 0 || rerr == nil || rerr != syscall.EAGAIN && rerr != syscall.EWOULDBLOCK && rerr != syscall.EINTR
		return true
	})
	return unusable || err != nil
}
