package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
)

// run configures the server (aggregator/server) from args and the -config
// file, listens, and serves until ctx ends; then the server shuts down
// gracefully (server.Server.Serve). Once listening it writes one line
// "aggregator: listening on http://ADDR" to stdout; logs go to stderr.
// stdin is not read.
//
// A bad flag or configuration value, or a failure to start (an archive
// list, rules or blacklist that cannot be read, a cache that cannot be
// opened, an address that cannot be listened on) is a cli.Usage error:
// exit status 2, apart from 1 (command-line mode: no memento found) and
// 3 (command-line mode: every archive asked failed).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		if cmd := commands(ctx, stdout, stderr).Find(args[0]); cmd != nil && cmd.Run != nil {
			return cmd.Run(args[1:])
		}
	}
	c, rest, err := parseConfig(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return cli.AsUsage(err)
	}
	if migrateDryRun {
		if err := printMigrationPlan(ctx, c.Cache, stdout); err != nil {
			return cli.AsUsage(err)
		}
		return nil
	}
	if len(rest) == 1 && rest[0] == "server" {
		rest = nil // MemGator's "memgator [flags] server"
	}
	if len(rest) > 0 {
		// The command-line mode: one search, printed (MemGator's CLI).
		return server.SearchOnce(ctx, &c, cliFormat, rest, stdout, stderr)
	}
	log, err := c.NewLogger(stderr)
	if err != nil {
		return cli.AsUsage(err) // checked by parseConfig
	}
	c.Logger = log
	setMemoryLimit(int64(c.BodyMemory), log)
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return cli.AsUsage(err)
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + ln.Addr().String() + c.RootPrefix()
	}
	s, err := server.New(ctx, &c)
	if err != nil {
		ln.Close()
		return cli.AsUsage(err)
	}
	if d := s.TempDir(); d != "" {
		// A second signal stops at once, Close not run: the folder goes then too.
		defer cli.OnHardStop(func() { os.RemoveAll(d) })()
	}
	fmt.Fprintf(stdout, "aggregator: listening on http://%s\n", ln.Addr())
	return s.Serve(ctx, ln)
}

// flagSet binds c's fields to flags named as the JSON keys, with dashes.
func flagSet(c *server.Config, configFile *string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("aggregator", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		writeUsage(out)
		fs.PrintDefaults()
	}
	dur := func(d *server.Duration, name, help string) {
		fs.DurationVar((*time.Duration)(d), name, time.Duration(*d), help)
	}
	fs.StringVar(configFile, "config", "", "JSON configuration `file`: its keys are the flag names with underscores; flags given override it")
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen on `host:port` (port 0 picks a free one)")
	fs.StringVar(&c.BaseURL, "base-url", c.BaseURL, "public `URL` of this server, used in the links of TimeMaps and headers (default http:// + the listening address + -root)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "`folder` of the bolt cache and the fetched MementoMaps (default the user cache folder + /mementokit-aggregator; a temporary folder with -cache memory or none)")
	fs.StringVar(&c.Archives, "archives", c.Archives, "archive list, a MemGator archives.json or a Time Travel archivelist.xml, from a `file or URL` (default the embedded public list)")
	fs.StringVar(&c.Rules, "rules", c.Rules, "Time Travel rules `file` (rules.json) choosing the archives per service and URI-R (default every archive for every service)")
	fs.StringVar(&c.Blacklist, "blacklist", c.Blacklist, "`file` of blocked hosts, one a line: their URI-Rs are answered 403 and no archive is asked")
	fs.StringVar(&c.Cache, "cache", c.Cache, "`store` of cached answers: none (every request searches), memory, bolt:PATH, or a MySQL DSN such as user:pass@tcp(127.0.0.1:3306)/db (server mode default bolt:DATA-DIR/cache.db; the command-line mode, a URI-R given, caches nothing unless -cache or the -config file names a store); bolt without a PATH is DATA-DIR/cache.db, its folder created if missing (DATA-DIR defaults to the user cache folder + /mementokit-aggregator, such as ~/.cache/mementokit-aggregator), the path logged at info and, in the command-line mode, named on standard error")
	dur(&c.MigrateTimeout, "migrate-timeout", "how long a MySQL cache's schema migration at start may take (the copy of a Time Travel aggregator database, logged per batch; 0: no limit)")
	dur(&c.CacheTimeout, "cache-timeout", "how long a request waits for the cache (its reads, then its writes) before it is answered by searching; /healthz waits as long")
	dur(&c.RequestTimeout, "request-timeout", "how long one archive's whole answer may take, unless its archive list entry sets its own")
	dur(&c.DynamicBudget, "dynamic-budget", "time budget of a live (dynamic) search")
	dur(&c.ThoroughBudget, "thorough-budget", "time budget of a background (thorough) search")
	dur(&c.ShutdownTimeout, "shutdown-timeout", "on SIGINT or SIGTERM, how long requests in flight and refresh jobs may still run")
	fs.IntVar(&c.Workers, "workers", c.Workers, "`N` refresh workers draining the cache's job queue (0: none)")
	dur(&c.WorkerIdle, "worker-idle", "a worker's wait after finding the queue empty")
	fs.IntVar(&c.FanOut, "fan-out", c.FanOut, "`N` archives asked at once by one search")
	fs.IntVar(&c.MaxConcurrent, "max-concurrent", c.MaxConcurrent, "`N` requests in flight per archive at most, unless its archive list entry sets its own")
	fs.IntVar(&c.MaxIdlePer, "max-idle-conns-per-host", c.MaxIdlePer, "`N` idle upstream connections kept per archive host for reuse (0: as many as -max-concurrent)")
	fs.IntVar(&c.Tolerance, "tolerance", c.Tolerance, "`N` consecutive failures make an archive dormant (negative: never)")
	dur(&c.DormantFor, "dormant-for", "how long a dormant archive is not asked")
	dur(&c.ProbeEvery, "probe-every", "how often every archive is probed in the background (one TimeGate request each, the first at start), so that /healthz and /about know a down, failing or dormant archive without traffic (0: never)")
	dur(&c.ProbeTimeout, "probe-timeout", "how long one probe may take")
	fs.Var(&c.MementoMaps, "mementomap", "MementoMap of an archive, as `id=SOURCE`: SOURCE a file, an http(s) URL, or \"discover\" (repeatable; an id not in the archive list is ignored with a warning)")
	fs.BoolVar(&c.DiscoverMaps, "discover-mementomaps", c.DiscoverMaps, "look for every archive's MementoMap at /.well-known/mementomap or a rel=\"mementomap\" link")
	dur(&c.MapRefresh, "mementomap-refresh", "how often fetched MementoMaps are fetched again (0: once)")
	dur(&c.MapMaxAge, "mementomap-max-age", "a MementoMap loaded longer ago is not trusted to skip an archive")
	dur(&c.MapCheck, "mementomap-check-every", "how often loaded MementoMap files are checked: one changed in place is dropped and loaded again, a file source replaced by a new file is loaded (0: never)")
	dur(&c.ScanEvery, "scan-every", "how often the cache is cleaned and entries older than -stale-after are queued for refresh (0: never)")
	dur(&c.StaleAfter, "stale-after", "age at which the scanner queues an entry for refresh")
	fs.StringVar(&c.Root, "root", c.Root, "path `prefix` the server answers under, such as /mg (MemGator's --root)")
	fs.StringVar(&c.UserAgent, "user-agent", c.UserAgent, "`name` sent as the User-Agent to the archives and to an archive list URL (default "+server.DefaultUserAgent+")")
	fs.StringVar(&c.Contact, "contact", c.Contact, "`URL or e-mail` appended to the User-Agent as <contact> (default "+server.DefaultContact+")")
	fs.IntVar(&c.TopK, "topk", c.TopK, "ask only the `K` archives of highest \"probability\" in the archive list (0: all)")
	fs.Var(&c.BodyMemory, "body-memory", "most `bytes` of upstream bodies held at once by all requests, each until its answer is written (256MiB, 1GiB, or bytes; 0: 256MiB; -1: no limit): an answer that cannot begin waits, past -body-memory-wait a 503 with Retry-After; one request needing more than all of it, or a chunked answer that gives way, gets over-memory-budget in Archive-Failures. The server sets the Go memory limit to 6 times it plus 64MiB unless GOMEMLIMIT is set; the process's resident memory is about 5.5 to 7 times it when every answer is at the cap")
	dur(&c.BodyMemoryWait, "body-memory-wait", "how long an archive's answer waits for its share of -body-memory (0: 10s)")
	fs.Var(&c.MaxProxyBytes, "max-proxy-bytes", "most `bytes` of a memento /memento/proxy streams (256MiB, 1GiB, or bytes; 0: 1GiB): over it a 502, or once streaming an aborted answer")
	fs.BoolVar(&c.MissToList, "miss-to-list", c.MissToList, "answer a miss of /memento and /api/json asked by a browser with a 302 to /list (Time Travel)")
	fs.BoolVar(&migrateDryRun, "migrate-dry-run", false, "print the steps that opening the MySQL -cache would run on its schema (a Time Travel database's migration included), change nothing, and exit")
	fs.BoolVar(&c.Strict, "strict", false, "command-line mode: a partial answer (some archive failed, timed out or was dormant) exits 3, the answer still printed; without it a found answer exits 0")
	fs.Func("format", "`format` of the command-line mode's answer: link, json or cdxj, in any case (default link)", func(v string) error {
		switch f := strings.ToLower(v); f {
		case "link", "json", "cdxj":
			cliFormat = f
			return nil
		}
		return fmt.Errorf("want link, json or cdxj, got %q", v)
	})
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "`format` of the log on standard error: json or text")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "lowest `level` logged: debug, info, warn or error")
	fs.BoolVar(&c.AccessLog, "access-log", c.AccessLog, "log one record per HTTP request, at info level")
	fs.StringVar(&c.HTTPServer, "http-server", c.HTTPServer, "HTTP `server` of the listener: strict (the aggregator's own HTTP/1.1 server: a strict request parser, at most 10,000 connections) or net/http (default strict)")
	return fs
}

// commands is the aggregator's command table: "server" (the default,
// also with no word at all; parseConfig reads it) and "observed".
func commands(ctx context.Context, stdout, stderr io.Writer) cli.Commands {
	return cli.Commands{
		{Name: "server", Args: "[flags]",
			Summary: "serve HTTP (the default; MemGator's \"memgator [flags] server\"): the flags may stand\nbefore or after the word"},
		{Name: "observed", Args: "-cache STORE -archive-id ID -o DIR",
			Summary: "observed maps from the cache, for archives that publish none (\"aggregator observed -h\")",
			Run:     func(args []string) error { return runObserved(ctx, args, stdout, stderr) }},
	}
}

// writeUsage writes the aggregator's usage up to its flag list.
func writeUsage(w io.Writer) {
	fmt.Fprint(w, `usage: aggregator [flags] [server [flags]]    serve HTTP
       aggregator [flags] URI-R [DATETIME]    one search, printed (MemGator's CLI)
       aggregator COMMAND [flags] ARGS
`)
	commands(context.Background(), nil, nil).WriteUsage(w)
	fmt.Fprint(w, `
Serves the Memento aggregator: TimeMaps, TimeGate and the Time Travel API
over the archives of the archive list, a web page at /, Prometheus metrics at
/metrics and a health check at /healthz.

Given a URI-R it searches once and prints its TimeMap on standard output,
or, with a DATETIME, the first, prev, closest, next and last mementos, in
MemGator's link, json or cdxj layout (-format). DATETIME is
`+flagvalue.DatetimeRule+`;
anything else (white space or a line end around it included) is refused.
No server runs behind that answer: its links to this API (self, timemap,
timegate) are left out, unless -base-url names a server to link to.
Standard error gets one line per archive that failed, timed out or was
dormant, naming it and the reason, one per archive whose answer had memento
links left out (no http(s) URI-M or readable datetime), with their count,
and, when a memento was found all the same, the headline of what each
archive did: a partial answer, exit status 0 unless -strict.

Exit status: 0 found (server mode: a clean shutdown); 1 not found
(command-line mode: some archive answered none or its MementoMap ruled it
out, also when other archives failed, timed out or were dormant: each
archive's answer and the headline on standard error; server mode: the
server failed after it started); 3 every archive asked failed or timed out (command-line mode:
no archive answered, the failures on standard error), or with -strict
some archive failed, timed out or was dormant (the answer found still
printed, or none found); 2 a usage, configuration
or start-up error: a bad flag or value, a -config file, archive list, rules
or blacklist that cannot be read, a cache that cannot be opened or
migrated, an address that cannot be listened on.

Flags:
`)
}

// parseConfig reads the flags, then, when -config names a file, reads it
// and applies the flags again over it, so that a flag given on the command
// line wins over the file, which wins over the defaults. An empty data
// folder becomes the default one (defaultDataDir) unless the cache is
// "memory" or "none", which keep their MementoMaps in a temporary folder.
func parseConfig(args []string, stderr io.Writer) (server.Config, []string, error) {
	c := server.DefaultConfig()
	var file string
	fs := flagSet(&c, &file, stderr)
	if err := cli.ParseFlags(fs, args); err != nil {
		return c, nil, err
	}
	if fs.NArg() > 1 && fs.Arg(0) == "server" {
		// Flags after the subcommand, as in "aggregator server -archives
		// FILE": read as if given before it.
		before := args[:len(args)-fs.NArg()]
		return parseConfig(append(append(slices.Clip(before), fs.Args()[1:]...), "server"), stderr)
	}
	rest := fs.Args()
	if file != "" {
		f := server.DefaultConfig()
		if err := server.LoadConfigFile(file, &f); err != nil {
			return f, nil, err
		}
		// The same arguments parsed a second time, over the file's values.
		if err := flagSet(&f, &file, io.Discard).Parse(args); err != nil {
			return f, nil, err
		}
		c = f
	}
	if len(rest) == 1 && rest[0] == "server" {
		rest = nil
	}
	if len(rest) > 0 {
		if err := flagAfterURIR(fs, rest); err != nil {
			return c, nil, err
		}
		// Command-line mode: one search, no state kept unless -cache or
		// the file names a store.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["cache"] && (file == "" || c.Cache == "" || c.Cache == "bolt") {
			c.Cache = "none"
		}
		c.Workers, c.AccessLog = 0, false
		if !set["log-level"] {
			c.LogLevel = "warn"
		}
		if !set["log-format"] {
			c.LogFormat = "text"
		}
	}
	if c.DataDir == "" && c.Cache != "memory" && c.Cache != "none" {
		c.DataDir = defaultDataDir()
	}
	return c, rest, c.Check()
}

// flagAfterURIR refuses a flag of fs given after the URI-R (rest is what
// follows the flags, URI-R first), such as "aggregator URI-R -format
// json": Go's flag package stops at the first argument that is not a
// flag, so the flag would be read as a datetime or an extra argument.
// The error names the flag and says that flags come first.
func flagAfterURIR(fs *flag.FlagSet, rest []string) error {
	for _, a := range rest[1:] {
		name, ok := strings.CutPrefix(a, "-")
		if !ok {
			continue
		}
		given, _, _ := strings.Cut(a, "=")
		name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
		if name == "h" || name == "help" || fs.Lookup(name) != nil {
			return fmt.Errorf("flag %s after the URI-R: flags come before it (aggregator [flags] URI-R [DATETIME])", given)
		}
	}
	return nil
}

// defaultDataDir is the user's cache folder (os.UserCacheDir, such as
// $XDG_CACHE_HOME or ~/.cache) + /mementokit-aggregator, else
// ./mementokit-aggregator.
func defaultDataDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mementokit-aggregator")
	}
	return "mementokit-aggregator"
}
