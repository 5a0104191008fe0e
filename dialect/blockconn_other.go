//go:build !linux

package dialect

import (
	"context"
	"net"
)

// dialBlocking is nil here: MySQL connections use Go's netpoller.
var dialBlocking func(ctx context.Context, network, addr string) (net.Conn, error)
