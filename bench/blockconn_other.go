//go:build !unix

package bench

import (
	"context"
	"net"
)

// blockingDial is the ordinary dialer where blocking sockets are not
// available.
func blockingDial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}
