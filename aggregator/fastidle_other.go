//go:build !unix

package aggregator

import "net"

// idlePeek would look at an idle connection's socket; without a look at
// the socket it cannot tell, and a connection is taken as usable (bytes
// already buffered are checked when it is kept).
type idlePeek struct{}

func newIdlePeek(net.Conn) *idlePeek { return &idlePeek{} }

// idleUnusable reports false: the socket cannot be looked at.
func (*idlePeek) idleUnusable() bool { return false }
