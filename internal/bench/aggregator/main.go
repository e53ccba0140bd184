// Command aggregator (internal/bench/aggregator) measures the aggregator
// deployment (aggregator/server) under load, on loopback, and, given
// -memgator, MemGator against the same archives in the same run:
//
//	go run ./internal/bench/aggregator                       # about 3 minutes
//	go run ./internal/bench/aggregator -memgator ~/bin/memgator
//	go run ./internal/bench/aggregator -duration 1s -warmup 300ms -skip-large
//
// It starts three local archives (internal/archiveserver) that add 20 ms of
// latency to every TimeMap and TimeGate answer: "small", 1,000 URI-Rs of
// 10 mementos each, every URI-R held by one of the three; "large", 250
// URI-Rs held by all three with 1,000 mementos each (TimeMaps of 3,000
// mementos). With more URI-Rs than connections, every uncached request is
// a fan-out of its own (no two requests in flight ask for one URI-R, so
// none joins another's search).
//
// Each run starts the server in a child process (this program with -serve:
// server.New with the archive list, cache "none" or "memory", the access
// log on, written as JSON to a file, MementoMap discovery when routing)
// or MemGator (server mode, on a free port), and drives it with a
// closed-loop Go load generator (-loader raw, the default: one persistent
// connection per client and pre-built requests, so that little of the
// machine goes to the client; -loader client uses net/http.Client) at 10,
// 50 and 200 connections, rotating over the URI-Rs (GET
// /timemap/link/{URI-R}). Before measuring it checks that the server's
// TimeMap of one URI-R lists every memento the archives hold.
//
// Per run it prints requests/s, p50 and p99 latency, the server process's
// CPU time per request (user+system, from /proc/PID/stat, so the same
// measure for both servers), this process's CPU per request (load
// generator and archives), and per client request the upstream requests
// the archives served, the fan-outs (searches, counted at the archives as
// TimeMaps found over the archives holding each URI-R), client requests per
// fan-out, and the new TCP connections the archives accepted. With
// -memgator it ends with the ratios of CPU per request, throughput, p50
// and p99 between the two at each connection count. The load generator
// and the archives share the machine with the server: the rates are those
// of the whole set-up; CPU per request is the figure that load on the
// machine disturbs least.
//
// The server runs on its default listener (http_server "strict", the
// aggregator's own HTTP/1.1 server, internal/h1serve); "cached, routing
// off, net/http server" runs the same server on net/http's in the same
// run ("mk net/http" in the server column), and the two floor runs write
// the server's cached answer of one URI-R from a bare handler under
// net/http and under the strict server: what each HTTP server and the
// sockets cost per answer.
//
// -empty-404 makes the archives answer 404 with an empty body;
// -cpuprofile-dir writes CPU, allocation and mutex profiles of the
// mementokit server per run, for go tool pprof; -only runs just the
// scenarios whose name contains its text. README.md says how to build
// MemGator for the comparison.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("bench", run) }
