// Command aggregator (internal/bench/aggregator) measures the aggregator
// package as a server under load, on loopback only:
//
//	go run ./internal/bench/aggregator                      # about 2 minutes
//	go run ./internal/bench/aggregator -duration 1s -warmup 300ms
//
// It starts three local archives (internal/archiveserver) that add 20 ms of
// latency to every TimeMap and TimeGate answer, holding 100 URI-Rs of 10
// mementos each, every URI-R held by one of the three. For each scenario it
// starts the aggregator in a child process (this same program with -serve),
// so that the child's getrusage CPU time is the server's own, and drives it
// with a closed-loop Go load generator (-loader raw, the default: one
// persistent connection per client and pre-built requests, so that little
// of the two cores goes to the client; -loader client uses net/http.Client)
// at 10, 50 and 200 connections,
// rotating over the 100 URI-Rs (GET /timemap/link/{URI-R}). Scenarios:
// uncached and cached (an in-memory cache, filled by the warm-up), routing
// by MementoMaps off and on; then the aggregator with its default HTTP
// client and per-archive concurrency; then three archives holding the same
// 100 URI-Rs with 1,000 mementos each (TimeMaps of 3,000 mementos).
//
// Per run it prints requests/s, p50 and p99 latency, the aggregator's CPU
// time per request (user+system), and per client request the upstream
// requests the archives served and the new TCP connections they accepted.
// The load generator and the archives share the machine with the server,
// so the rates are those of the whole set-up, not of the server alone.
//
// -empty-404 makes the archives answer 404 with an empty body, which
// isolates what an upstream client that closes unread bodies costs (a new
// connection per "not found"); -cpuprofile-dir writes a CPU profile and a
// mutex contention profile of the aggregator per run, for go tool pprof;
// -only runs just the scenarios whose name contains its text.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("bench", run) }
