// Package server assembles a whole aggregator deployment from one
// configuration, as examples/aggregator runs it, so that a program of its
// own can embed the same service: the aggregator (package aggregator) over
// an archive list, rules and blacklist, its cache (memory, a bbolt file or
// MySQL), the web page at / and /list (internal/webui), Prometheus metrics
// at /metrics, a health check at /healthz, an access log, the MementoMap
// loader, the refresh workers draining the cache's job queue and the
// periodic cache scan, with a graceful shutdown.
//
// # Configuration
//
// Config is the deployment's configuration, the same keys as the JSON
// configuration file (DecodeConfig, LoadConfigFile) and as the example
// binary's flags: DefaultConfig gives the defaults, a file is read over
// them, and Check refuses values no server can run with. The package
// never reads flags or environment variables and never logs anywhere but
// Config.Logger (nil discards); a command line turns its flags into a
// Config, and picks the data folder (the example binary uses the user's
// cache folder).
//
// # Lifecycle
//
//	c := server.DefaultConfig()
//	c.DataDir, c.Logger = "/srv/aggregator", logger
//	s, err := server.New(ctx, &c)      // reads the files, opens the cache
//	...
//	err = s.Serve(ctx, listener)       // until ctx ends, then drains and closes
//
// New reads every file under its context, so that a signal stops a long
// start-up (a blacklist of millions of hosts) at once. Serve answers HTTP
// and runs the background work until its context ends, then stops
// accepting connections, gives requests in flight and refresh jobs
// Config.ShutdownTimeout to finish, and closes the aggregator and the
// cache. A Server that is never served is released with Close. Server is
// an http.Handler too, for a deployment that runs its own http.Server.
//
// # Command-line mode
//
// SearchOnce is MemGator's command-line mode ("URI-R [DATETIME]"): it
// assembles the same deployment, searches once and writes the TimeMap or
// the memento description to a writer, without serving; its errors say
// why nothing was printed (ErrBadArgument, ErrNoMemento, ErrAllFailed).
//
// # Metrics
//
// The metrics are on a registry of the Server's own (never Prometheus's
// global one): HTTP requests by endpoint and status, their durations,
// requests in flight, per-archive upstream requests sent, saved by
// MementoMaps, refused by the allow-list, outcomes and durations, dormancy,
// MementoMap loads, changes and reloads, cache lookups by scenario, cache
// call failures and degraded requests, the refresh queue and jobs, plus
// the Go runtime and process collectors.
package server
