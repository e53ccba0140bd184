//go:build !unix

package aggregator

import "net"

// idleUnusable reports whether the idle connection c has bytes waiting
// or was closed; without a look at the socket it cannot tell, and a
// connection is taken as usable (bytes already buffered are checked
// when it is kept).
func idleUnusable(net.Conn) bool { return false }
