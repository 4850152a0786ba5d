// Package serve is what every kubesplit service does to run: listen where
// its flags say (a host:port, or a socket inherited from a supervisor),
// speak HTTPS with HTTP/2 when given a certificate, shut down gracefully,
// and, from main, parse flags, report where it listens and stop on SIGTERM.
// The services differ in their handlers only; this is the rest, written
// once.
package serve
