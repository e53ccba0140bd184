package aggregator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Service names one use of the archive lists in the Time Travel rules file
// (internal/spec/TIMETRAVEL.md §2). The rules file has a "<service>default" key per
// service and a per-rule "<service>" key.
type Service string

// The services. /timegate uses the TimeGate pair, /timemap the TimeMap pair,
// /api/json and /memento the Time Travel pair; *Dynamic lists serve live
// dynamic searches and *Cache lists thorough ones; Batch serves the
// background refresh.
const (
	TimeGateDynamic   Service = "timegate_dynamic"
	TimeGateCache     Service = "timegate_cache"
	TimeMapDynamic    Service = "timemap_dynamic"
	TimeMapCache      Service = "timemap_cache"
	TimeTravelDynamic Service = "timetravel_dynamic"
	TimeTravelCache   Service = "timetravel_cache"
	Batch             Service = "batch"
)

// Services lists every service in the order the rules file documents them.
var Services = []Service{TimeGateDynamic, TimeGateCache, TimeMapDynamic, TimeMapCache, TimeTravelDynamic, TimeTravelCache, Batch}

// defaultsPrefix is the Time Travel prefix put before a rule pattern that
// does not start with http://: scheme letters, an optional "://", then
// letters and dots (a host), matched unanchored.
const defaultsPrefix = `\p{L}{0,10}(?:://)?[\p{L}\.]{0,50}`

// ErrRules wraps every rules-file error.
var ErrRules = errors.New("rules")

// Rules chooses archives per service and URI-R, as the Time Travel rules.json
// does (internal/spec/TIMETRAVEL.md §2). Unlike the original, overlapping rules resolve in
// file order (the first matching rule wins) and archive ids that the
// registry does not know are reported (Unknown) and dropped. A Rules is
// immutable after ParseRules and safe for concurrent use.
type Rules struct {
	defaults map[Service][]string
	rules    []rule
	unknown  []string
}

type rule struct {
	pattern string
	re      *regexp.Regexp
	lists   map[Service][]string
}

// Rule is one rule as loaded: its pattern as written, and its expanded
// per-service archive lists (a service the rule does not name uses the
// default list).
type Rule struct {
	Pattern string
	Lists   map[Service][]string
}

// DefaultRules gives every service the same list: all of ids, in order. It
// is what an aggregator without a rules file uses.
func DefaultRules(ids []string) *Rules {
	r := &Rules{defaults: map[Service][]string{}}
	for _, s := range Services {
		r.defaults[s] = slices.Clone(ids)
	}
	return r
}

// ParseRules reads a Time Travel rules JSON document. known reports whether
// an archive id is in the registry (nil accepts every id). Each list value
// is one string of comma-separated ids (split on commas with optional
// spaces); the token "<service>default" inside a list expands to that
// service's default list. A missing default means an empty list. A rule's
// "url" is a regular expression (RE2 syntax, which covers the Time Travel
// examples): matched as written when it starts with http://, otherwise after
// the Time Travel prefix `\p{L}{0,10}(?:://)?[\p{L}\.]{0,50}`; both are
// unanchored searches over the whole URI-R. A rule's "api" key (patterns
// from a remote document) is not fetched: such a rule keeps only its "url"
// pattern. Errors wrap ErrRules and name the rule index; a JSON syntax error
// names its byte offset.
func ParseRules(rd io.Reader, known func(id string) bool) (*Rules, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: byte %d: %v", ErrRules, se.Offset, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrRules, err)
	}
	r := &Rules{defaults: map[Service][]string{}}
	unknown := map[string]bool{}
	rawDefaults := map[Service]string{}
	for _, s := range Services {
		v, ok := raw[string(s)+"default"]
		if !ok {
			continue
		}
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			return nil, fmt.Errorf("%w: %sdefault: want a string of comma-separated ids: %v", ErrRules, s, err)
		}
		rawDefaults[s] = str
	}
	// Defaults may name other defaults too; expand without recursion.
	for _, s := range Services {
		r.defaults[s] = expand(rawDefaults[s], rawDefaults, nil, known, unknown)
	}
	if v, ok := raw["rules"]; ok {
		var list []map[string]json.RawMessage
		if err := json.Unmarshal(v, &list); err != nil {
			return nil, fmt.Errorf("%w: rules: want an array of objects: %v", ErrRules, err)
		}
		for i, obj := range list {
			var pat string
			if err := json.Unmarshal(obj["url"], &pat); err != nil || pat == "" {
				return nil, fmt.Errorf("%w: rule %d: missing or non-string \"url\"", ErrRules, i)
			}
			expr := pat
			if !strings.HasPrefix(pat, "http://") {
				expr = defaultsPrefix + pat
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, fmt.Errorf("%w: rule %d: url %q: %v", ErrRules, i, pat, err)
			}
			ru := rule{pattern: pat, re: re, lists: map[Service][]string{}}
			for _, s := range Services {
				v, ok := obj[string(s)]
				if !ok {
					continue
				}
				var str string
				if err := json.Unmarshal(v, &str); err != nil {
					return nil, fmt.Errorf("%w: rule %d: %s: want a string of comma-separated ids: %v", ErrRules, i, s, err)
				}
				ru.lists[s] = expand(str, rawDefaults, r.defaults, known, unknown)
			}
			r.rules = append(r.rules, ru)
		}
	}
	for id := range unknown {
		r.unknown = append(r.unknown, id)
	}
	sort.Strings(r.unknown)
	return r, nil
}

var listSep = regexp.MustCompile(`\s*,\s*`)

// expand splits a comma-separated list, replaces "<service>default" tokens
// by that default list, drops unknown ids (recording them) and duplicates.
func expand(v string, rawDefaults map[Service]string, defaults map[Service][]string, known func(string) bool, unknown map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if id == "" || seen[id] {
			return
		}
		if known != nil && !known(id) {
			unknown[id] = true
			return
		}
		seen[id] = true
		out = append(out, id)
	}
	for _, tok := range listSep.Split(strings.TrimSpace(v), -1) {
		if name, ok := strings.CutSuffix(tok, "default"); ok && slices.Contains(Services, Service(name)) {
			if defaults != nil {
				for _, id := range defaults[Service(name)] {
					add(id)
				}
				continue
			}
			// Inside a default: expand one level from the raw text.
			for _, id := range listSep.Split(strings.TrimSpace(rawDefaults[Service(name)]), -1) {
				if !strings.HasSuffix(id, "default") {
					add(id)
				}
			}
			continue
		}
		add(tok)
	}
	return out
}

// Archives returns the ids of the archives service s uses for urir: the
// lists of the first rule (in file order) whose pattern matches urir and
// that names s, else the default list. The slice is shared: do not modify.
func (r *Rules) Archives(s Service, urir string) []string {
	for i := range r.rules {
		ru := &r.rules[i]
		if l, ok := ru.lists[s]; ok && ru.re.MatchString(urir) {
			return l
		}
	}
	return r.defaults[s]
}

// Unknown lists, sorted, the archive ids the rules named that the registry
// does not know; they were dropped from every list.
func (r *Rules) Unknown() []string { return slices.Clone(r.unknown) }

// List returns the loaded rules in file order, with expanded lists.
func (r *Rules) List() []Rule {
	out := make([]Rule, len(r.rules))
	for i, ru := range r.rules {
		lists := map[Service][]string{}
		for s, l := range ru.lists {
			lists[s] = slices.Clone(l)
		}
		out[i] = Rule{Pattern: ru.pattern, Lists: lists}
	}
	return out
}

// Default returns a copy of service s's default list.
func (r *Rules) Default(s Service) []string { return slices.Clone(r.defaults[s]) }
