package server

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agnivade/levenshtein"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
)

// defaultArchives is MemGator's public archive list (2026-04) without its
// entries marked "ignore"; README.md in this folder gives its provenance.
//
//go:embed archives.json
var defaultArchives []byte

// DefaultArchives returns the embedded default archive list (MemGator
// JSON): MemGator's public list of 2026-04 without the entries it marks
// "ignore" (README.md of this package gives its provenance).
func DefaultArchives() []byte { return bytes.Clone(defaultArchives) }

// Config is a whole deployment's configuration: what a JSON configuration
// file holds (keys as the JSON tags; durations as Go duration strings,
// "10s"), and what New assembles a Server from. DefaultConfig gives the
// defaults; DecodeConfig and LoadConfigFile read a file over them.
type Config struct {
	// Addr is the host:port the deployment listens on; New uses it only
	// for the default BaseURL ("http://" + Addr). The Server serves the
	// listener given to Serve.
	Addr string `json:"addr"`
	// BaseURL is the public URL of the server, written in TimeMap, TimeGate
	// and page links (default "http://" + Addr).
	BaseURL string `json:"base_url"`
	// DataDir holds the bolt cache (when Cache names no path) and fetched
	// MementoMaps. Empty: a temporary folder removed by Close, which a
	// bolt cache without a path refuses (its file would not survive).
	DataDir string `json:"data_dir"`

	// Archives is the archive list: a file or an http(s) URL (fetched
	// within ListFetchTimeout and MaxListBytes at start-up; a failure
	// stops New), MemGator JSON or Time Travel archivelist.xml, told apart
	// by the first non-blank byte; "" is the embedded public list
	// (DefaultArchives). Archives are ranked by "probability", highest
	// first, as MemGator does; those without keep their order.
	Archives string `json:"archives"`
	// Rules is a Time Travel rules.json file ("": every archive for every
	// service); Blacklist a file of blocked hosts, one a line ("": none).
	Rules     string `json:"rules"`
	Blacklist string `json:"blacklist"`
	// Cache names the store: "none" (every request searches), "memory",
	// "bolt" or "" (DataDir/cache.db), "bolt:PATH", or a MySQL DSN with or without a "mysql:" prefix
	// (user:pass@tcp(host:3306)/db).
	Cache string `json:"cache"`
	// MigrateTimeout bounds a MySQL cache's schema migration at start (the
	// copy of a Time Travel aggregator database included); 0 means no
	// limit.
	MigrateTimeout Duration `json:"migrate_timeout"`

	CacheTimeout    Duration `json:"cache_timeout"`
	RequestTimeout  Duration `json:"request_timeout"`
	DynamicBudget   Duration `json:"dynamic_budget"`
	ThoroughBudget  Duration `json:"thorough_budget"`
	ShutdownTimeout Duration `json:"shutdown_timeout"`

	Workers       int      `json:"workers"`
	WorkerIdle    Duration `json:"worker_idle"`
	FanOut        int      `json:"fan_out"`
	MaxConcurrent int      `json:"max_concurrent"`
	MaxIdlePer    int      `json:"max_idle_conns_per_host"`
	Tolerance     int      `json:"tolerance"`
	DormantFor    Duration `json:"dormant_for"`

	MementoMaps  MapSources `json:"mementomap"`
	DiscoverMaps bool       `json:"discover_mementomaps"`
	MapRefresh   Duration   `json:"mementomap_refresh"`
	MapMaxAge    Duration   `json:"mementomap_max_age"`
	MapCheck     Duration   `json:"mementomap_check_every"`

	ScanEvery  Duration `json:"scan_every"`
	StaleAfter Duration `json:"stale_after"`

	// ProbeEvery is how often Serve probes every archive in the background
	// (aggregator.Aggregator.RunProbes: one TimeGate request each, the
	// first at start), so that /healthz and /about know an archive that is
	// down, failing or dormant without traffic; 0 never probes.
	// ProbeTimeout bounds one probe.
	ProbeEvery   Duration `json:"probe_every"`
	ProbeTimeout Duration `json:"probe_timeout"`

	// Root is the path prefix the server answers under, such as "/mg"
	// (MemGator's --root): every path is Root + the endpoint's path, and
	// requests outside it get 404. "" or "/" is none. The default BaseURL
	// ends with it.
	Root string `json:"root"`
	// UserAgent is sent to the archives (default DefaultUserAgent);
	// Contact, when set, is appended as " <Contact>" (MemGator's --agent
	// and --contact), so that archive operators can reach the deployment.
	UserAgent string `json:"user_agent"`
	Contact   string `json:"contact"`
	// TopK, when positive, asks only the K archives of highest
	// "probability" in the archive list (aggregator.Options.TopK;
	// MemGator's --topk).
	TopK int `json:"topk"`
	// MaxProxyBytes caps the memento body /memento/proxy streams, in bytes
	// (aggregator.Options.MaxProxyBytes; 0: its default, 1 GiB): over it
	// the answer is a 502, or, once streaming, an aborted connection. It
	// is read by the rule of Bytes (1GiB, 1073741824).
	MaxProxyBytes Bytes `json:"max_proxy_bytes"`
	// BodyMemory is the budget of upstream body bytes held at once by all
	// searches together (aggregator.Options.BodyMemory; 0: its default,
	// 256 MiB; -1: no limit): a request whose archives' answers do not
	// fit waits for its share up to BodyMemoryWait, past it a 503 with
	// Retry-After; one request needing more than all of it gets
	// over-memory-budget in Archive-Failures (a partial answer, or a 502
	// when nothing was read). It is read by the rule of Bytes (256MiB,
	// 268435456, -1).
	BodyMemory Bytes `json:"body_memory"`
	// BodyMemoryWait is how long an archive's answer waits for its share
	// of BodyMemory (aggregator.Options.BodyMemoryWait; 0: its default,
	// 10s).
	BodyMemoryWait Duration `json:"body_memory_wait"`
	// MissToList answers a miss of /memento and /api/json asked by a
	// browser with a 302 to /list, as Time Travel does
	// (aggregator.Options.MissToList).
	MissToList bool `json:"miss_to_list"`

	// LogFormat ("json" or "text") and LogLevel ("debug", "info", "warn",
	// "error") describe the deployment's log for NewLogger; New logs to
	// Logger whatever these say.
	LogFormat string `json:"log_format"`
	LogLevel  string `json:"log_level"`
	// AccessLog writes one "access" record per HTTP request (info level),
	// a request outside Root and one answered 400 or 404 included; its
	// "target" is the request target as aggregator.ShortTarget shows it
	// (at most 2 KiB and the length of a longer one).
	// With a JSON logger from NewLogger the records are written together:
	// when no other request is being answered, before any other record,
	// per 64 KiB, and at the latest 50 ms after the request (a process
	// killed without its shutdown loses at most those 50 ms of records).
	AccessLog bool `json:"access_log"`
	// HTTPServer names the server that answers HTTP on Serve's listener:
	// "strict" or "" (HTTPServerStrict, the server's own HTTP/1.1 server)
	// or "net/http" (HTTPServerNetHTTP). Both answer the same requests
	// the same way; "strict" refuses with 400 what RFC 9112 does not
	// allow (a bare LF, obsolete line folding) where net/http takes some.
	HTTPServer string `json:"http_server"`

	// Logger receives the server's records; nil discards them. Not part of
	// a configuration file.
	Logger *slog.Logger `json:"-"`
	// NoAPILinks leaves the links to this server out of TimeMaps and
	// memento descriptions (aggregator.Options.NoAPILinks): for answers
	// read where no server runs (a command-line mode). Not part of a
	// configuration file.
	NoAPILinks bool `json:"-"`
	// Strict makes SearchOnce's partial answers errors: mementos found
	// while some archive failed, timed out or was dormant end in
	// ErrSomeFailed (exit status ExitAllFailed), the answer still
	// written. Not part of a configuration file (the command-line mode's
	// -strict).
	Strict bool `json:"-"`
}

// DefaultProbeEvery is Config.ProbeEvery's default: every archive is
// probed every 5 minutes.
const DefaultProbeEvery = 5 * time.Minute

// DefaultUserAgent is the User-Agent sent to archives when
// Config.UserAgent is empty.
const DefaultUserAgent = "mementokit-aggregator"

// DefaultContact is appended to the User-Agent when Config.Contact is
// empty.
const DefaultContact = "https://github.com/mementokit/mementokit"

// userAgent is the User-Agent c sends: UserAgent (or DefaultUserAgent)
// followed by " <Contact>" (or DefaultContact).
func (c *Config) userAgent() string {
	ua, contact := c.UserAgent, c.Contact
	if ua == "" {
		ua = DefaultUserAgent
	}
	if contact == "" {
		contact = DefaultContact
	}
	return ua + " <" + contact + ">"
}

// checkRoot refuses a Root no request path can reach as written: one
// holding '?', '#', '%', a space, a control character or a non-ASCII
// byte, or a "." or ".." segment (clients remove those, RFC 3986 section
// 5.2.4).
func checkRoot(root string) error {
	for i := 0; i < len(root); i++ {
		if b := root[i]; b <= ' ' || b >= 0x7f || strings.IndexByte("?#%", b) >= 0 {
			return fmt.Errorf("root %q: byte %q at %d; want a path of ASCII letters, digits and punctuation but ?#%%, such as /mg", root, b, i)
		}
	}
	for _, seg := range strings.Split(root, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("root %q: a %q segment; want a path such as /mg", root, seg)
		}
	}
	return nil
}

// RootPrefix is Config.Root as a prefix: "" or "/x/y" without a trailing slash.
func (c *Config) RootPrefix() string {
	r := strings.TrimRight(c.Root, "/")
	if r != "" && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// DefaultConfig returns the defaults: localhost:1208, the embedded archive
// list, a bolt cache in DataDir, the aggregator's default budgets and
// limits (aggregator.Default*), four refresh workers, an hourly cache scan
// that queues entries older than two weeks (the Time Travel refresher's
// age), JSON logs at info level with an access log.
func DefaultConfig() Config {
	return Config{
		Addr:            "localhost:1208",
		CacheTimeout:    Duration(aggregator.DefaultCacheTimeout),
		RequestTimeout:  Duration(aggregator.DefaultRequestTimeout),
		DynamicBudget:   Duration(aggregator.DefaultDynamicBudget),
		ThoroughBudget:  Duration(aggregator.DefaultThoroughBudget),
		ShutdownTimeout: Duration(30 * time.Second),
		Workers:         4,
		WorkerIdle:      Duration(5 * time.Second),
		FanOut:          aggregator.DefaultFanOut,
		MaxConcurrent:   aggregator.DefaultMaxConcurrent,
		Tolerance:       aggregator.DefaultTolerance,
		DormantFor:      Duration(aggregator.DefaultDormantFor),
		MapMaxAge:       Duration(aggregator.DefaultMapMaxAge),
		MapCheck:        Duration(aggregator.DefaultMapCheckEvery),
		ScanEvery:       Duration(time.Hour),
		StaleAfter:      Duration(14 * 24 * time.Hour),
		ProbeEvery:      Duration(DefaultProbeEvery),
		ProbeTimeout:    Duration(aggregator.DefaultProbeTimeout),
		LogFormat:       "json",
		LogLevel:        "info",
		AccessLog:       true,
	}
}

// LoadConfigFile decodes the JSON object in the file at path over c
// (DecodeConfig); the error names the file.
func LoadConfigFile(path string, c *Config) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := DecodeConfig(b, c); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

// DecodeConfig decodes one JSON object over c: keys it holds replace c's
// values, the others are kept. Unknown keys (the error names the nearest
// known key, when one is near) and data after the object are
// errors; a syntax or type error names its byte offset (and the key).
// It does not Check the result.
func DecodeConfig(b []byte, c *Config) error {
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
		if k, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if k, err2 := strconv.Unquote(k); err2 == nil {
				if near := nearestConfigKey(k); near != "" {
					return fmt.Errorf("unknown key %q (did you mean %q?)", k, near)
				}
				return fmt.Errorf("unknown key %q", k)
			}
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("byte %d: data after the JSON object", dec.InputOffset())
	}
	return nil
}

// nearestConfigKey is the Config key nearest to k by edit distance, when
// it is at most a third of k's length (at least 2) away; "" otherwise.
func nearestConfigKey(k string) string {
	best, bestD := "", len(k)/3
	if bestD < 2 {
		bestD = 2
	}
	t := reflect.TypeOf(Config{})
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		if d := levenshtein.ComputeDistance(k, name); d <= bestD && (best == "" || d < bestD) {
			best, bestD = name, d
		}
	}
	return best
}

// Check rejects values no server can run with; the error lists each
// problem, naming the key with dashes as the example binary's flags do
// ("fan-out must be positive, got 0").
func (c *Config) Check() error {
	var errs []error
	for _, d := range []struct {
		name string
		v    Duration
	}{{"cache-timeout", c.CacheTimeout}, {"request-timeout", c.RequestTimeout}, {"dynamic-budget", c.DynamicBudget}, {"thorough-budget", c.ThoroughBudget},
		{"shutdown-timeout", c.ShutdownTimeout}, {"worker-idle", c.WorkerIdle}, {"dormant-for", c.DormantFor}, {"mementomap-max-age", c.MapMaxAge}, {"probe-timeout", c.ProbeTimeout}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %v", d.name, time.Duration(d.v)))
		}
	}
	switch c.HTTPServer {
	case "", HTTPServerStrict, HTTPServerNetHTTP:
	default:
		errs = append(errs, fmt.Errorf("http-server must be %s or %s, got %q", HTTPServerStrict, HTTPServerNetHTTP, c.HTTPServer))
	}
	for _, d := range []struct {
		name string
		v    Duration
	}{{"mementomap-refresh", c.MapRefresh}, {"migrate-timeout", c.MigrateTimeout}, {"mementomap-check-every", c.MapCheck}, {"scan-every", c.ScanEvery}, {"stale-after", c.StaleAfter}, {"probe-every", c.ProbeEvery}, {"body-memory-wait", c.BodyMemoryWait}} {
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
	if c.BodyMemory < -1 {
		errs = append(errs, fmt.Errorf("body_memory must be -1 (no limit), 0 (the default) or bytes, got %d", c.BodyMemory))
	}
	if c.MaxProxyBytes < 0 {
		errs = append(errs, fmt.Errorf("max_proxy_bytes must not be negative, got %d", c.MaxProxyBytes))
	}
	if c.TopK < 0 {
		errs = append(errs, fmt.Errorf("topk must not be negative, got %d", c.TopK))
	}
	if err := checkRoot(c.Root); err != nil {
		errs = append(errs, err)
	}
	if err := checkBaseURL(c.BaseURL); err != nil {
		errs = append(errs, err)
	}
	if c.Addr == "" && c.BaseURL == "" {
		errs = append(errs, errors.New("addr is empty"))
	}
	return errors.Join(errs...)
}

// checkBaseURL refuses a BaseURL that is not "" (the default) or an
// absolute http or https URL with a host and no query or fragment
// (RFC 3986 section 4.3), such as http://agg.example.org/mg: the links of
// TimeMaps and TimeGate headers (RFC 7089 section 5) are made from it.
func checkBaseURL(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	switch {
	case err != nil:
		return fmt.Errorf("base-url %q: %w; want an absolute http or https URL such as http://agg.example.org", base, err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "", u.User != nil, u.RawQuery != "", u.ForceQuery, u.Fragment != "",
		strings.ContainsFunc(base, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("base-url %q: want an absolute http or https URL with a host and no query or fragment, such as http://agg.example.org", base)
	}
	return nil
}

// NewLogger returns a logger writing to w in c.LogFormat at c.LogLevel;
// it fails on values Check refuses. Records are written whole, one Write
// each, except that in JSON the Server's access records are written
// several in one Write (AccessLog says when), in the bytes
// slog.JSONHandler writes, without building a slog.Record.
func (c *Config) NewLogger(w io.Writer) (*slog.Logger, error) {
	level, err := logLevel(c.LogLevel)
	if err != nil {
		return nil, err
	}
	hopts := &slog.HandlerOptions{Level: level}
	switch c.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts)), nil
	case "json":
		lw := &lockedWriter{w: w}
		return slog.New(&jsonHandler{JSONHandler: slog.NewJSONHandler(lw, hopts), w: lw}), nil
	}
	return nil, fmt.Errorf("log-format %q: want json or text", c.LogFormat)
}

func logLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, fmt.Errorf("log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// Duration is a time.Duration written in JSON as a Go duration string
// ("10s", "1h30m").
type Duration time.Duration

// Bytes is a size in bytes of the configuration (max_proxy_bytes,
// body_memory) and of its flags, read by one rule: a size as
// flagvalue.ParseBytes reads it ("256MiB", "1GiB", "4096"), or 0 (the
// default) or -1 (no limit, where Check allows it); in JSON a number or a
// string of the same. An error wraps flagvalue.ErrSize.
type Bytes int64

// Set reads s by the rule of Bytes. A value other than "0" or "-1" that
// flagvalue.ParseBytes refuses gives its error (wrapping
// flagvalue.ErrSize) with ", 0 or -1" added, and leaves b unchanged.
func (b *Bytes) Set(s string) error {
	switch strings.TrimSpace(s) {
	case "0":
		*b = 0
		return nil
	case "-1":
		*b = -1
		return nil
	}
	n, err := flagvalue.ParseBytes(s)
	if err != nil {
		return fmt.Errorf("%w, 0 or -1", err)
	}
	*b = Bytes(n)
	return nil
}

// String returns b as Set reads it back: flagvalue.FormatBytes of a
// positive size ("256MiB"), else the number.
func (b *Bytes) String() string {
	if b == nil {
		return "0"
	}
	if *b <= 0 {
		return strconv.FormatInt(int64(*b), 10)
	}
	return flagvalue.FormatBytes(int64(*b))
}

// UnmarshalJSON reads a JSON number of bytes, or a string read by Set
// ("256MiB"). A JSON value that is neither a string nor an integer gives
// an error quoting it; a string gives Set's error.
func (b *Bytes) UnmarshalJSON(d []byte) error {
	var s string
	if err := json.Unmarshal(d, &s); err != nil {
		var n int64
		if err := json.Unmarshal(d, &n); err != nil {
			return fmt.Errorf("want a number of bytes or a size string such as \"256MiB\", got %s", d)
		}
		*b = Bytes(n)
		return nil
	}
	return b.Set(s)
}

// UnmarshalJSON reads a duration string such as "10s". A value that is
// not a JSON string, or a string time.ParseDuration refuses, gives an
// error saying what is wanted and wrapping the decoder's or parser's.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"10s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration string such as \"10s\": %w", err)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string such as "10s". It returns
// json.Marshal's error, which a string never has.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// MapSources maps an archive id to its MementoMap source: a file path, an
// http(s) URL, or "discover". It is a flag.Value set once per id=SOURCE.
type MapSources map[string]string

// String lists the pairs as "id=SOURCE id=SOURCE", sorted by id.
func (m *MapSources) String() string {
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

// Set adds one id=SOURCE pair (spaces around either part are trimmed). A
// value without "=", or with an empty id or SOURCE, is an error quoting it
// ("want id=SOURCE") and adds nothing.
func (m *MapSources) Set(v string) error {
	id, src, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(id) == "" || strings.TrimSpace(src) == "" {
		return fmt.Errorf("want id=SOURCE, got %q", v)
	}
	if *m == nil {
		*m = MapSources{}
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

// MaxListBytes caps an archive list fetched from a URL (16 MiB: the
// public lists are a few KiB); ListFetchTimeout bounds the fetch.
const (
	MaxListBytes     = 16 << 20
	ListFetchTimeout = 30 * time.Second
)

// fetchList GETs an archive list from url within ListFetchTimeout and
// MaxListBytes, sending userAgent as the User-Agent (the one the archives
// see, Config's -user-agent and -contact); the error names the URL and
// the cause (status, timeout, size).
func fetchList(ctx context.Context, url, userAgent string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, ListFetchTimeout)
	defer cancel()
	fail := func(err error) ([]byte, error) { return nil, fmt.Errorf("archive list %s: %w", url, err) }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fail(err)
	}
	req.Header.Set("Accept", "application/json, application/xml;q=0.9, */*;q=0.1")
	req.Header.Set("User-Agent", userAgent)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fail(fmt.Errorf("no answer within %v: %w", ListFetchTimeout, err))
		}
		return fail(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(fmt.Errorf("status %s", resp.Status))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxListBytes+1))
	if err != nil {
		return fail(err)
	}
	if len(b) > MaxListBytes {
		return fail(fmt.Errorf("larger than %d bytes", MaxListBytes))
	}
	return b, nil
}

// LoadArchives reads the archive list c names (LoadArchiveList) and
// applies the MementoMap sources of the configuration: MementoMaps
// entries win over the list's own "mementomap" keys, and DiscoverMaps
// gives discovery to every archive left without a source. It returns the
// archives and the list's name for logs ("embedded public list" or the
// file). An id in MementoMaps that the list lacks is ignored with a
// warning on c.Logger naming the ids and the list (as rules naming
// archives outside the list are): a configuration written for one list,
// such as the example's {"web.archive.org": "discover"}, still runs with
// another list (-archives), and the operator is told which entries do
// nothing.
//
// Errors: a list at an http(s) URL that cannot be fetched gives an error
// naming the URL and the cause (status, no answer within
// ListFetchTimeout, larger than MaxListBytes); a file gives cli.Open's
// error, or its read error prefixed with the file name; a list
// ParseArchiveList refuses gives its error (a *aggregator.ListError naming
// the entry's byte offset or line) prefixed with the list's name.
func LoadArchives(ctx context.Context, c *Config) ([]aggregator.Archive, string, error) {
	data, name := defaultArchives, "embedded public list"
	if strings.HasPrefix(c.Archives, "http://") || strings.HasPrefix(c.Archives, "https://") {
		b, err := fetchList(ctx, c.Archives, c.userAgent())
		if err != nil {
			return nil, "", err
		}
		data, name = b, c.Archives
	} else if c.Archives != "" {
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
	as, err := ParseArchiveList(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	// MemGator ranks its archives by probability at start-up; entries
	// without one keep their order after those with one.
	sort.SliceStable(as, func(i, j int) bool { return as[i].Probability > as[j].Probability })
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
	if len(unknown) > 0 && c.Logger != nil {
		sort.Strings(unknown)
		c.Logger.Warn("mementomaps name archives that are not in the archive list; those entries are ignored", "list", name, "unknown", unknown)
	}
	return as, name, nil
}

// ParseArchiveList reads an archive list in either format, told apart by
// its first non-blank byte: '<' for the Time Travel archivelist.xml
// (aggregator.ParseArchivesXML), anything else MemGator's JSON
// (aggregator.ParseArchivesJSON). Its error is that parser's: a
// *aggregator.ListError naming the bad entry and its byte offset (JSON)
// or line (XML).
func ParseArchiveList(data []byte) ([]aggregator.Archive, error) {
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '<' {
		return aggregator.ParseArchivesXML(bytes.NewReader(data))
	}
	return aggregator.ParseArchivesJSON(bytes.NewReader(data))
}
