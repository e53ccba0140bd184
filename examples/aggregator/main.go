// Command aggregator serves a Memento aggregator (package aggregator) over
// HTTP: it asks many web archives at once for the captures (mementos) of a
// URL and merges their answers, skipping the archives whose MementoMap says
// they hold nothing. It is wiring: flags and the -config file become a
// server.Config, and package aggregator/server assembles and runs the
// deployment (server.New and Serve; server.SearchOnce for the
// command-line mode).
//
//	go run ./examples/aggregator                       # the public archives, bolt cache, localhost:1208
//	go run ./examples/aggregator -config aggregator.json -addr :8080
//	go run ./examples/aggregator -archives archivelist.xml -rules rules.json -cache memory
//	go run ./examples/aggregator http://example.com/             # print the TimeMap (MemGator's CLI)
//	go run ./examples/aggregator -format json http://example.com/ 2005
//	go run ./examples/aggregator observed -cache bolt:cache.db -archive-id ia -o maps/  # observed maps
//
// Endpoints (GET and HEAD; OPTIONS answers a browser's CORS preflight):
//
//	/                                  a form: a URL and an optional date (package internal/webui)
//	/list/{datetime}/{URI-R}           the result page, per archive: found, skipped by MementoMap, failed
//	/timemap/{link|json|cdxj}/{URI-R}  the merged TimeMap (RFC 7089 §5)
//	/timemap/{link|json}/{N}/{URI-R}   page N of it
//	/timemap/index/{URI-R}             Time Travel's DIY index: one rel="timemap" per archive
//	/timemap/index/json/{URI-R}        the same index in Time Travel's JSON (timemap_index)
//	/timegate/{URI-R}                  302 to the memento closest to Accept-Datetime (RFC 7089 §4)
//	/memento/{datetime}/{URI-R}        302 to the memento closest to datetime
//	/memento/{link|json|cdxj}/{datetime}/{URI-R}  MemGator's description (first, prev, closest, next, last)
//	/memento/proxy/{datetime}/{URI-R}  the closest memento's own bytes, streamed from its archive
//	/api/json/{datetime}/{URI-R}       the Time Travel JSON description
//	/api/{link|cdxj|proxy}/...         MemGator's alias of /memento/{link|cdxj|proxy}/...
//	/about                             endpoints, archives with their state, configuration
//	/archives[/{json|xml}]             the archive registry (MemGator JSON, archivelist.xml)
//	/metrics                           Prometheus metrics
//	/healthz                           200 with a JSON summary; 503 while draining, when the cache
//	                                   fails, or degraded when every archive is dormant or failing
//	                                   (known from background probes, -probe-every, without traffic)
//
// With -root PREFIX every path is under PREFIX. Given a URI-R (and a
// datetime) after the flags (a flag after the URI-R is refused, as Go's
// flag package stops at the first argument), it searches once and prints the answer
// instead of serving, without links to this API (self, timemap, timegate:
// no server runs behind the answer) unless -base-url names one; exit
// status 0 found, 1 not found (also when some other archive failed: a
// miss from the archives that answered; with -strict 3), 2 a usage,
// configuration or start-up error (in server mode too), 3 every archive
// asked failed or timed out.
//
// Configuration comes from the defaults, then the JSON file named by
// -config (its keys are the flag names with underscores, durations written
// "10s"), then the flags given, each overriding the one before; -h lists
// them. With no archive list the embedded public list is used: MemGator's
// archives.json without the entries it marks "ignore"
// (aggregator/server/README.md). The
// cache is a bbolt file in the data folder unless -cache says "memory" or
// gives a MySQL DSN.
//
// Logs are structured (slog, JSON or text) on standard error: an "access"
// record per HTTP request (method, target, endpoint, status, bytes,
// duration, remote, user agent, Archive-Failures; for a lookup its URI-R,
// scenario, mementos and each archive's outcome, which
// "mementomap logs" reads), and the aggregator's own
// records (component=aggregator), such as its per-lookup "request" record
// with the cache scenario. SIGINT or SIGTERM starts a graceful shutdown: the listener
// closes, requests in flight and refresh jobs running get -shutdown-timeout
// to finish, and the cache is closed. Exit status: 0 after a clean
// shutdown (command-line mode: a memento found); 1 in command-line mode
// when no memento was found (an archive answered none, or its MementoMap
// ruled it out), in server mode when the server failed after it started;
// 3 in command-line mode when every archive asked failed or timed out; 2 for a usage, configuration or
// start-up error (a bad flag or value, an unreadable -config file, archive
// list, rules or blacklist, a cache that cannot be opened or migrated, an
// address in use); 128+N after signal N (130 SIGINT, 143 SIGTERM).
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("aggregator", run) }
