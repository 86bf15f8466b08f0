// Command httpapp stands in for the app server of the nginx → app case
// (shared case 11, golden nginx-unicorn) when `bench http --compose` runs
// on the engine: the embedded backend's handler (benchhttp.Handler, which
// names the listener in X-Uds-Bench-Transport) on a TCP address and on a
// Unix socket of the given mode, as the migrated unicorn.rb listens.
//
//	httpapp TCPADDR SOCKET MODE     e.g. httpapp 0.0.0.0:8080 /run/app/app.sock 0777
//
// Built static (CGO_ENABLED=0) by the engine tests and
// scripts/bench-headlines.sh, and bind-mounted into the client image.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/uds-migrate/uds-migrate/benchhttp"
)

func main() {
	if len(os.Args) != 4 {
		fail("usage: httpapp TCPADDR SOCKET MODE")
	}
	mode, err := strconv.ParseUint(os.Args[3], 8, 32)
	if err != nil {
		fail("mode: " + err.Error())
	}
	os.Remove(os.Args[2]) // a socket left by the previous container
	ul, err := net.Listen("unix", os.Args[2])
	if err != nil {
		fail(err.Error())
	}
	if err := os.Chmod(os.Args[2], os.FileMode(mode)); err != nil {
		fail(err.Error())
	}
	tl, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fail(err.Error())
	}
	errs := make(chan error, 2)
	for l, name := range map[net.Listener]string{tl: "tcp", ul: "unix"} {
		srv := &http.Server{Handler: benchhttp.Handler(name), ReadHeaderTimeout: 10 * time.Second}
		go func() { errs <- srv.Serve(l) }()
	}
	fmt.Println("httpapp: listening on", os.Args[1], "and", os.Args[2])
	fail((<-errs).Error())
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "httpapp: "+msg)
	os.Exit(2)
}
