// Package proxy is the second migration uds-migrate does: an nginx reverse
// proxy in front of an app server (gunicorn, uvicorn, puma, uwsgi,
// unicorn) moves from an upstream over TCP to a Unix socket in a named
// volume the two share. It reads the nginx configuration the proxy mounts
// (package nginx), tells the app server to listen on the socket (package
// appserver: its command line or its unicorn config) and adds the mounts
// through compose.Editor; the findings are the UDS3xx codes.
package proxy
