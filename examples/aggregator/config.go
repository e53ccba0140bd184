package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/internal/cli"
)

// defaultArchives is MemGator's public archive list (2026-04) without its
// entries marked "ignore"; README.md in this folder gives its provenance.
//
//go:embed archives.json
var defaultArchives []byte

// config is the whole configuration: defaults, then the -config file, then
// the flags given on the command line, each overriding the one before.
type config struct {
	ConfigFile string `json:"-"`

	Addr    string `json:"addr"`
	BaseURL string `json:"base_url"`
	DataDir string `json:"data_dir"`

	Archives  string `json:"archives"`
	Rules     string `json:"rules"`
	Blacklist string `json:"blacklist"`
	Cache     string `json:"cache"`

	CacheTimeout    duration `json:"cache_timeout"`
	RequestTimeout  duration `json:"request_timeout"`
	DynamicBudget   duration `json:"dynamic_budget"`
	ThoroughBudget  duration `json:"thorough_budget"`
	ShutdownTimeout duration `json:"shutdown_timeout"`

	Workers       int      `json:"workers"`
	WorkerIdle    duration `json:"worker_idle"`
	FanOut        int      `json:"fan_out"`
	MaxConcurrent int      `json:"max_concurrent"`
	MaxIdlePer    int      `json:"max_idle_conns_per_host"`
	Tolerance     int      `json:"tolerance"`
	DormantFor    duration `json:"dormant_for"`

	MementoMaps  mapSources `json:"mementomaps"`
	DiscoverMaps bool       `json:"discover_mementomaps"`
	MapRefresh   duration   `json:"mementomap_refresh"`
	MapMaxAge    duration   `json:"mementomap_max_age"`
	MapCheck     duration   `json:"mementomap_check_every"`

	ScanEvery  duration `json:"scan_every"`
	StaleAfter duration `json:"stale_after"`

	LogFormat string `json:"log_format"`
	LogLevel  string `json:"log_level"`
	AccessLog bool   `json:"access_log"`
}

func defaults() config {
	return config{
		Addr:            "localhost:1208",
		CacheTimeout:    duration(aggregator.DefaultCacheTimeout),
		RequestTimeout:  duration(aggregator.DefaultRequestTimeout),
		DynamicBudget:   duration(aggregator.DefaultDynamicBudget),
		ThoroughBudget:  duration(aggregator.DefaultThoroughBudget),
		ShutdownTimeout: duration(30 * time.Second),
		Workers:         4,
		WorkerIdle:      duration(5 * time.Second),
		FanOut:          aggregator.DefaultFanOut,
		MaxConcurrent:   aggregator.DefaultMaxConcurrent,
		Tolerance:       aggregator.DefaultTolerance,
		DormantFor:      duration(aggregator.DefaultDormantFor),
		MapMaxAge:       duration(aggregator.DefaultMapMaxAge),
		MapCheck:        duration(aggregator.DefaultMapCheckEvery),
		ScanEvery:       duration(time.Hour),
		StaleAfter:      duration(14 * 24 * time.Hour),
		LogFormat:       "json",
		LogLevel:        "info",
		AccessLog:       true,
	}
}

// flagSet binds c's fields to flags named as the JSON keys use dashes.
func flagSet(c *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("aggregator", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, usage)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.ConfigFile, "config", "", "JSON configuration `file` (keys as the flags, with underscores); flags override it")
	fs.StringVar(&c.Addr, "addr", c.Addr, "`host:port` to listen on (port 0 picks a free one)")
	fs.StringVar(&c.BaseURL, "base-url", c.BaseURL, "public `URL` of this server for links in TimeMaps (default http:// + the listening address)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "`folder` for the bolt cache and fetched MementoMaps (default the user cache folder + /mementokit-aggregator)")
	fs.StringVar(&c.Archives, "archives", c.Archives, "archive list `file`: MemGator JSON or Time Travel archivelist.xml (default the embedded public list)")
	fs.StringVar(&c.Rules, "rules", c.Rules, "Time Travel rules.json `file` (default every archive for every service)")
	fs.StringVar(&c.Blacklist, "blacklist", c.Blacklist, "`file` of blocked hosts, one a line (403)")
	fs.StringVar(&c.Cache, "cache", c.Cache, "cache `store`: memory, bolt:PATH, or a MySQL DSN such as user:pass@tcp(127.0.0.1:3306)/db (default bolt:DATA-DIR/cache.db)")
	fs.DurationVar((*time.Duration)(&c.CacheTimeout), "cache-timeout", time.Duration(c.CacheTimeout), "how long a request waits for the cache (its reads, then its writes) before it is answered by searching; /healthz waits as long")
	fs.DurationVar((*time.Duration)(&c.RequestTimeout), "request-timeout", time.Duration(c.RequestTimeout), "default timeout of one archive's answer")
	fs.DurationVar((*time.Duration)(&c.DynamicBudget), "dynamic-budget", time.Duration(c.DynamicBudget), "time budget of a live (dynamic) search")
	fs.DurationVar((*time.Duration)(&c.ThoroughBudget), "thorough-budget", time.Duration(c.ThoroughBudget), "time budget of a background (thorough) search")
	fs.DurationVar((*time.Duration)(&c.ShutdownTimeout), "shutdown-timeout", time.Duration(c.ShutdownTimeout), "on SIGINT or SIGTERM, how long requests in flight and refresh jobs may still run")
	fs.IntVar(&c.Workers, "workers", c.Workers, "refresh workers draining the cache's job queue (0: none)")
	fs.DurationVar((*time.Duration)(&c.WorkerIdle), "worker-idle", time.Duration(c.WorkerIdle), "a worker's wait after finding the queue empty")
	fs.IntVar(&c.FanOut, "fan-out", c.FanOut, "archives one search asks at once")
	fs.IntVar(&c.MaxConcurrent, "max-concurrent", c.MaxConcurrent, "requests in flight per archive (an archive list entry may set its own)")
	fs.IntVar(&c.MaxIdlePer, "max-idle-conns-per-host", c.MaxIdlePer, "idle upstream connections kept per archive host for reuse (0: as many as -max-concurrent)")
	fs.IntVar(&c.Tolerance, "tolerance", c.Tolerance, "consecutive failures that make an archive dormant (negative: never)")
	fs.DurationVar((*time.Duration)(&c.DormantFor), "dormant-for", time.Duration(c.DormantFor), "how long a dormant archive is not asked")
	fs.Var(&c.MementoMaps, "mementomap", "`id=SOURCE`: the MementoMap of archive id from a file, an http(s) URL, or \"discover\" (repeatable)")
	fs.BoolVar(&c.DiscoverMaps, "discover-mementomaps", c.DiscoverMaps, "look for every archive's MementoMap at /.well-known/mementomap or a rel=\"mementomap\" link")
	fs.DurationVar((*time.Duration)(&c.MapRefresh), "mementomap-refresh", time.Duration(c.MapRefresh), "how often fetched MementoMaps are fetched again (0: once)")
	fs.DurationVar((*time.Duration)(&c.MapMaxAge), "mementomap-max-age", time.Duration(c.MapMaxAge), "a MementoMap loaded longer ago is not trusted to skip an archive")
	fs.DurationVar((*time.Duration)(&c.MapCheck), "mementomap-check-every", time.Duration(c.MapCheck), "how often loaded MementoMap files are checked: one changed in place is dropped and loaded again, a file source replaced by a new file is loaded (0: never)")
	fs.DurationVar((*time.Duration)(&c.ScanEvery), "scan-every", time.Duration(c.ScanEvery), "how often the cache is cleaned and entries older than -stale-after are queued for refresh (0: never)")
	fs.DurationVar((*time.Duration)(&c.StaleAfter), "stale-after", time.Duration(c.StaleAfter), "age at which the scanner queues an entry for refresh")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "log `format` on standard error: json or text")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "log `level`: debug, info, warn or error")
	fs.BoolVar(&c.AccessLog, "access-log", c.AccessLog, "log one line per HTTP request (info level)")
	return fs
}

const usage = `usage: aggregator [flags]

Serves the Memento aggregator: TimeMaps, TimeGate and the Time Travel API
over the archives of the archive list, a web page at /, Prometheus metrics at
/metrics and a health check at /healthz.

`

// parseConfig reads the flags, then, when -config names a file, reads it
// and applies the flags again over it, so that a flag given on the command
// line wins over the file, which wins over the defaults.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	c := defaults()
	if err := flagSet(&c, stderr).Parse(args); err != nil {
		return c, err
	}
	if c.ConfigFile == "" {
		return c, checkConfig(c)
	}
	f := defaults()
	if err := loadConfigFile(c.ConfigFile, &f); err != nil {
		return f, err
	}
	f.ConfigFile = c.ConfigFile
	// The same arguments parsed a second time, over the file's values.
	if err := flagSet(&f, io.Discard).Parse(args); err != nil {
		return f, err
	}
	return f, checkConfig(f)
}

// loadConfigFile decodes the JSON object in path over c; unknown keys are
// errors, and the error names the byte offset of a syntax or type error.
func loadConfigFile(path string, c *config) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := decodeConfig(b, c); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// decodeConfig decodes one JSON object over c. The error names the byte
// offset of a syntax or type error, or the unknown key.
func decodeConfig(b []byte, c *config) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return fmt.Errorf("byte %d: key %q: want a %s, got %s", te.Offset, te.Field, te.Type, te.Value)
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("byte %d: data after the JSON object", dec.InputOffset())
	}
	return nil
}

// checkConfig rejects values no server can run with.
func checkConfig(c config) error {
	var errs []error
	for _, d := range []struct {
		name string
		v    duration
	}{{"cache-timeout", c.CacheTimeout}, {"request-timeout", c.RequestTimeout}, {"dynamic-budget", c.DynamicBudget}, {"thorough-budget", c.ThoroughBudget},
		{"shutdown-timeout", c.ShutdownTimeout}, {"worker-idle", c.WorkerIdle}, {"dormant-for", c.DormantFor}, {"mementomap-max-age", c.MapMaxAge}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %v", d.name, time.Duration(d.v)))
		}
	}
	for _, d := range []struct {
		name string
		v    duration
	}{{"mementomap-refresh", c.MapRefresh}, {"mementomap-check-every", c.MapCheck}, {"scan-every", c.ScanEvery}, {"stale-after", c.StaleAfter}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %v", d.name, time.Duration(d.v)))
		}
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"workers", c.Workers}, {"max-idle-conns-per-host", c.MaxIdlePer}} {
		if n.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %d", n.name, n.v))
		}
	}
	for _, n := range []struct {
		name string
		v    int
	}{{"fan-out", c.FanOut}, {"max-concurrent", c.MaxConcurrent}} {
		if n.v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", n.name, n.v))
		}
	}
	if c.Tolerance == 0 {
		errs = append(errs, errors.New("tolerance must not be 0 (negative disables dormancy)"))
	}
	if _, err := logLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		errs = append(errs, fmt.Errorf("log-format %q: want json or text", c.LogFormat))
	}
	if c.Addr == "" {
		errs = append(errs, errors.New("addr is empty"))
	}
	return errors.Join(errs...)
}

func logLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// dataDir returns the configured data folder, or the default one: the
// user's cache folder (os.UserCacheDir) + /mementokit-aggregator, else
// ./mementokit-aggregator.
func (c config) dataDir() string {
	if c.DataDir != "" {
		return c.DataDir
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "mementokit-aggregator")
	}
	return "mementokit-aggregator"
}

// duration is a time.Duration written in JSON as a Go duration string
// ("10s", "1h30m").
type duration time.Duration

// UnmarshalJSON reads a duration string such as "10s".
func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"10s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration string such as \"10s\": %w", err)
	}
	*d = duration(v)
	return nil
}

// mapSources maps an archive id to its MementoMap source: a file path, an
// http(s) URL, or "discover". As a flag it is set once per id=SOURCE.
type mapSources map[string]string

func (m *mapSources) String() string {
	if m == nil {
		return ""
	}
	ids := make([]string, 0, len(*m))
	for id := range *m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id + "=" + (*m)[id]
	}
	return strings.Join(parts, " ")
}

// Set adds one id=SOURCE pair.
func (m *mapSources) Set(v string) error {
	id, src, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(id) == "" || strings.TrimSpace(src) == "" {
		return fmt.Errorf("want id=SOURCE, got %q", v)
	}
	if *m == nil {
		*m = mapSources{}
	}
	(*m)[strings.TrimSpace(id)] = strings.TrimSpace(src)
	return nil
}

// mapSource turns a source string into an aggregator.MapSource.
func mapSource(src string, refresh time.Duration) aggregator.MapSource {
	switch {
	case src == "discover":
		return aggregator.MapSource{Discover: true, Refresh: refresh}
	case strings.HasPrefix(src, "http://"), strings.HasPrefix(src, "https://"):
		return aggregator.MapSource{URL: src, Refresh: refresh}
	}
	return aggregator.MapSource{File: src}
}

// loadArchives reads the archive list named by c.Archives (JSON or XML,
// told apart by the first non-blank byte) or the embedded default, and
// applies the MementoMap sources of the configuration: -mementomap entries
// win over the list's own "mementomap" keys, and -discover-mementomaps
// gives discovery to every archive left without a source.
func loadArchives(ctx context.Context, c config) ([]aggregator.Archive, string, error) {
	data, name := defaultArchives, "embedded public list"
	if c.Archives != "" {
		f, err := cli.Open(ctx, c.Archives)
		if err != nil {
			return nil, "", err
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", c.Archives, err)
		}
		data, name = b, c.Archives
	}
	var (
		as  []aggregator.Archive
		err error
	)
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '<' {
		as, err = aggregator.ParseArchivesXML(bytes.NewReader(data))
	} else {
		as, err = aggregator.ParseArchivesJSON(bytes.NewReader(data))
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	known := map[string]bool{}
	for i := range as {
		known[as[i].ID] = true
		if src, ok := c.MementoMaps[as[i].ID]; ok {
			as[i].Map = mapSource(src, time.Duration(c.MapRefresh))
		} else if c.DiscoverMaps && !as[i].Map.Configured() {
			as[i].Map = aggregator.MapSource{Discover: true, Refresh: time.Duration(c.MapRefresh)}
		} else if as[i].Map.Configured() && as[i].Map.Refresh == 0 && as[i].Map.File == "" {
			as[i].Map.Refresh = time.Duration(c.MapRefresh)
		}
	}
	var unknown []string
	for id := range c.MementoMaps {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, "", fmt.Errorf("mementomap: no archive with id %s in %s", strings.Join(unknown, ", "), name)
	}
	return as, name, nil
}
