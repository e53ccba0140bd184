package memento

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mementokit/mementokit/timestamp"
)

// lfCase is one testdata/linkformat case (format in its README.md).
type lfCase struct {
	name   string
	kind   string // link-header | timemap-body
	input  string
	expect []lfExpect
}

type lfExpect struct{ key, value string }

func loadLinkFormatCases(t *testing.T) []lfCase {
	t.Helper()
	files, err := filepath.Glob("testdata/linkformat/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var cases []lfCase
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		in := strings.Index(s, "=== input\n")
		ex := strings.Index(s, "\n=== expect\n")
		if in < 0 || ex < 0 || ex < in {
			t.Fatalf("%s: no input/expect sections", f)
		}
		c := lfCase{name: strings.TrimSuffix(filepath.Base(f), ".txt"), input: s[in+len("=== input\n") : ex]}
		for _, line := range strings.Split(s[:in], "\n") {
			if v, ok := strings.CutPrefix(line, "# kind: "); ok {
				c.kind = strings.TrimSpace(v)
			}
		}
		for _, line := range strings.Split(s[ex+len("\n=== expect\n"):], "\n") {
			if line == "" {
				continue
			}
			k, v, ok := strings.Cut(line, ": ")
			if !ok {
				t.Fatalf("%s: bad expect line %q", f, line)
			}
			c.expect = append(c.expect, lfExpect{k, v})
		}
		cases = append(cases, c)
	}
	return cases
}

var (
	reByte    = regexp.MustCompile(`^error at byte (\d+)`)
	reLeadInt = regexp.MustCompile(`^(\d+)`)
)

// lfBase is the response URI the cases are parsed against; case 06 names
// it ("request was https://www.webarchive.org.uk/...").
const lfBase = "https://www.webarchive.org.uk/wayback/archive/timegate/http://vvork.com/"

// caseChecks hold the checks for expect keys whose value is prose, one per
// case and key. TestLinkFormatCases fails when an expect key is covered
// neither by the generic checks nor here.
var caseChecks = map[string]map[string]func(t *testing.T, links []Link, tm *TimeMap){
	"01-rfc7089-folded-timemap": {
		"license": func(t *testing.T, _ []Link, tm *TimeMap) {
			for _, m := range tm.Mementos {
				if got := paramOf(m.Extra, "license"); got != "http://creativecommons.org/publicdomain/zero/1.0/" {
					t.Errorf("%s: license %q", m.URIM, got)
				}
			}
			if len(tm.Mementos) != 4 {
				t.Errorf("%d mementos", len(tm.Mementos))
			}
		},
		"note": func(t *testing.T, _ []Link, tm *TimeMap) {
			var got []string
			for _, m := range tm.Mementos {
				got = append(got, timestamp.Format(m.Datetime))
			}
			want := []string{"20000620180259", "20000621011731", "20000621044156", "20091027204954"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		},
	},
	"02-ia-timegate-link-header": {
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			// Accept-Datetime without GMT must be refused by a strict reader.
			if _, err := ParseHTTPDate("Thu, 20 Mar 2003 19:54:39"); err == nil {
				t.Error("date without GMT accepted")
			}
			for _, l := range links {
				if l.IsMemento() {
					if _, err := ParseHTTPDate(mustParam(t, l, "datetime")); err != nil {
						t.Errorf("datetime of %s: %v", l.Target, err)
					}
				}
			}
		},
	},
	"04-lanl-diy-timemap-index": {
		"timemaps": func(t *testing.T, _ []Link, tm *TimeMap) {
			var ids, compliant []string
			for _, p := range tm.Pages {
				title := paramOf(p.Params, "title")
				c, id, _ := strings.Cut(title, "|")
				ids = append(ids, strings.TrimPrefix(id, "archive_id:"))
				compliant = append(compliant, strings.TrimPrefix(c, "memento_compliant:"))
			}
			if diff := cmp.Diff([]string{"webcite", "gcwa", "hr", "pt", "ia"}, ids); diff != "" {
				t.Errorf("archive ids:\n%s", diff)
			}
			if diff := cmp.Diff([]string{"no", "no", "no", "no", "yes"}, compliant); diff != "" {
				t.Errorf("compliance:\n%s", diff)
			}
		},
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			if links[len(links)-1].Target != "http://timetravel.mementoweb.org/timemap/link/http://matkelly.com/" {
				t.Errorf("last link %q", links[len(links)-1].Target)
			}
		},
	},
	"05-lanl-timemap-index-paged": {
		"timemaps": func(t *testing.T, _ []Link, tm *TimeMap) {
			var got []string
			for _, p := range tm.Pages {
				until := "open"
				if !p.Until.IsZero() {
					until = timestamp.Format(p.Until)
				}
				got = append(got, "["+timestamp.Format(p.From)+".."+until+"]")
			}
			want := []string{"[20000620180259..20000805071233]", "[20000805071310..20001002114002]", "[20001002114100..open]"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("pages:\n%s", diff)
			}
		},
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			for _, l := range links {
				for _, p := range l.Params {
					if strings.ContainsAny(p.Name, " \t") {
						t.Errorf("param name %q", p.Name)
					}
				}
			}
		},
	},
	"06-ukwa-scheme-relative-unordered": {
		"resolved (request was https://www.webarchive.org.uk/...)": func(t *testing.T, links []Link, _ *TimeMap) {
			want := "https://www.webarchive.org.uk/wayback/archive/20100124041439/http://vvork.com/"
			if links[3].Target != want || links[3].RawTarget != "//www.webarchive.org.uk/wayback/archive/20100124041439/http://vvork.com/" {
				t.Errorf("target %q raw %q", links[3].Target, links[3].RawTarget)
			}
		},
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			for _, l := range links {
				if strings.HasPrefix(l.Target, "//") {
					t.Errorf("unresolved %q", l.Target)
				}
			}
		},
	},
	"09-semicolon-in-uri": {
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			if !strings.Contains(links[0].Target, "&amp;oldid=") {
				t.Errorf("target changed: %q", links[0].Target)
			}
		},
	},
	"10-unquoted-tokens-perma": {
		"note": func(t *testing.T, _ []Link, _ *TimeMap) {
			ls, err := ParseLinkFormat(`<http://example.com>; rel=original`, &ParseOptions{Strict: true})
			if err != nil || len(ls) != 1 || !ls[0].HasRel("original") {
				t.Errorf("unquoted single-token rel refused: %v %v", ls, err)
			}
		},
	},
	"12-missing-angle-brackets": {
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			for _, l := range links {
				if l.Target == "" || !strings.HasSuffix(l.Target, "dans.knaw.nl/") {
					t.Errorf("empty or truncated target %q", l.Target)
				}
			}
		},
	},
	"13-unparseable": {
		"note": func(t *testing.T, _ []Link, _ *TimeMap) {
			_, err := ParseLinkFormat(`<sfafafasfasfafafafafaf, rel='ssss'`, nil)
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Offset != 0 || !errors.Is(err, ErrUnterminatedTarget) {
				t.Errorf("err %v", err)
			}
		},
	},
	"14-truncated-datetime": {
		"note": func(t *testing.T, links []Link, tm *TimeMap) {
			if tm.Invalid != 1 || len(tm.Mementos) != 0 {
				t.Errorf("Invalid %d, mementos %d: a datetime was guessed", tm.Invalid, len(tm.Mementos))
			}
		},
	},
	"17-pywb-timemap-collection": {
		"extension": func(t *testing.T, _ []Link, tm *TimeMap) {
			for _, m := range tm.Mementos {
				if got := paramOf(m.Extra, "collection"); got != "pywb" {
					t.Errorf("%s: collection %q", m.URIM, got)
				}
			}
		},
		"note": func(t *testing.T, links []Link, _ *TimeMap) {
			if len(links) != 5 {
				t.Errorf("%d links", len(links))
			}
		},
	},
	"18-same-datetime-two-archives": {
		"closest to \"Fri, 14 May 2010 23:18:57 GMT\"": func(t *testing.T, _ []Link, tm *TimeMap) {
			at, _ := ParseHTTPDate("Fri, 14 May 2010 23:18:57 GMT")
			var got []string
			for _, m := range tm.SameSecond(tm.ClosestIndex(at)) {
				got = append(got, m.URIM)
			}
			want := []string{"http://wayback.archive-it.org/all/20100514231857/http://example.com/", "http://web.archive.org/web/20100514231857/http://example.com/"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("closest:\n%s", diff)
			}
		},
		"note": func(t *testing.T, _ []Link, tm *TimeMap) {
			if tm.Duplicates != 0 {
				t.Errorf("%d mementos dropped as duplicates", tm.Duplicates)
			}
		},
	},
	"20-rfc-original-timegate-multirel": {
		"note": func(t *testing.T, _ []Link, tm *TimeMap) {
			if len(tm.Pages) != 1 || tm.Pages[0].From.IsZero() || tm.Pages[0].Until.IsZero() {
				t.Errorf("from/until lost: %+v", tm.Pages)
			}
		},
	},
}

func paramOf(ps []Param, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func mustParam(t *testing.T, l Link, name string) string {
	t.Helper()
	v, ok := l.Param(name)
	if !ok {
		t.Fatalf("%s: no %s", l.Target, name)
	}
	return v
}

// firstDatetimeOf returns the datetime of the first link with rel r.
func firstDatetimeOf(links []Link, r string) string {
	for _, l := range links {
		if l.HasRel(r) {
			v, _ := l.Param("datetime")
			return v
		}
	}
	return ""
}

func firstTargetOf(links []Link, r string) *Link {
	for i := range links {
		if links[i].HasRel(r) {
			return &links[i]
		}
	}
	return nil
}

// TestLinkFormatCases runs every testdata/linkformat case in strict and
// lenient mode, one-shot and streamed byte by byte, and checks each expect
// line.
func TestLinkFormatCases(t *testing.T) {
	for _, c := range loadLinkFormatCases(t) {
		t.Run(c.name, func(t *testing.T) {
			opts := func(strict bool) *ParseOptions { return &ParseOptions{Base: lfBase, Strict: strict} }
			strictLinks, strictErr := ParseLinkFormat(c.input, opts(true))
			links, lenientErr := ParseLinkFormat(c.input, opts(false))

			// The streamed parse, fed one byte at a time, must agree.
			for _, strict := range []bool{true, false} {
				want, wantErr := strictLinks, strictErr
				if !strict {
					want, wantErr = links, lenientErr
				}
				got, err := NewReader(iotest.OneByteReader(strings.NewReader(c.input)), opts(strict)).ReadAll()
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("strict=%v: Reader differs from ParseLinkFormat:\n%s", strict, diff)
				}
				if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
					t.Errorf("strict=%v: Reader err %v, ParseLinkFormat err %v", strict, err, wantErr)
				}
			}

			tm, _ := NewTimeMap(links, nil)
			checks := caseChecks[c.name]
			used := map[string]bool{}
			for _, e := range c.expect {
				k, v := e.key, e.value
				switch k {
				case "strict":
					switch {
					case strings.HasPrefix(v, "ok"):
						if strictErr != nil {
							t.Errorf("strict: %v", strictErr)
						}
					case strings.HasPrefix(v, "link syntax ok; datetime invalid"):
						if strictErr != nil {
							t.Errorf("strict: %v", strictErr)
						}
						_, err := ReadTimeMap(strings.NewReader(c.input), opts(true))
						if !errors.Is(err, ErrMementoDatetime) {
							t.Errorf("strict TimeMap read: err %v, want ErrMementoDatetime", err)
						}
					case strings.HasPrefix(v, "error"):
						var pe *ParseError
						if !errors.As(strictErr, &pe) {
							t.Fatalf("strict: err %v, want *ParseError", strictErr)
						}
						if m := reByte.FindStringSubmatch(v); m != nil {
							if want, _ := strconv.ParseInt(m[1], 10, 64); pe.Offset != want {
								t.Errorf("strict: error at byte %d, want %d (%v)", pe.Offset, want, pe)
							}
						}
					default:
						t.Fatalf("unknown strict expectation %q", v)
					}
				case "lenient":
					switch {
					case strings.HasPrefix(v, "ok"):
						if lenientErr != nil {
							t.Errorf("lenient: %v", lenientErr)
						}
						if strings.Contains(v, "memento is dropped") {
							ltm, err := ReadTimeMap(strings.NewReader(c.input), opts(false))
							if err != nil || ltm.Invalid != 1 || len(ltm.Mementos) != 0 {
								t.Errorf("lenient TimeMap: err %v, Invalid %d, %d mementos", err, ltm.Invalid, len(ltm.Mementos))
							}
						}
					case strings.HasPrefix(v, "error"):
						if lenientErr == nil {
							t.Errorf("lenient: no error")
						}
						if strings.Contains(v, "same") && (strictErr == nil || lenientErr.Error() != strictErr.Error()) {
							t.Errorf("lenient error %v differs from strict %v", lenientErr, strictErr)
						}
					default:
						t.Fatalf("unknown lenient expectation %q", v)
					}
				case "links":
					if want, _ := strconv.Atoi(v); len(links) != want {
						t.Errorf("links: %d, want %d", len(links), want)
					}
				case "rels":
					var got []string
					for _, l := range links {
						got = append(got, strings.Join(l.Rel, " "))
					}
					if diff := cmp.Diff(strings.Split(v, " | "), got); diff != "" {
						t.Errorf("rels (-want +got):\n%s", diff)
					}
				case "mementos":
					n := 0
					for _, l := range links {
						if l.IsMemento() {
							n++
						}
					}
					want, _ := strconv.Atoi(reLeadInt.FindString(v))
					if n != want {
						t.Errorf("mementos: %d memento links, want %d", n, want)
					}
					if strings.Contains(v, "0 with a valid datetime") && len(tm.Mementos) != 0 {
						t.Errorf("mementos with valid datetime: %d, want 0", len(tm.Mementos))
					}
					if strings.Contains(v, "distinct datetimes") {
						distinct := map[int64]bool{}
						for _, m := range tm.Mementos {
							distinct[m.Datetime.Unix()] = true
						}
						wantD, _ := strconv.Atoi(regexp.MustCompile(`(\d+) distinct datetimes`).FindStringSubmatch(v)[1])
						if len(tm.Mementos) != want || len(distinct) != wantD {
							t.Errorf("%d mementos with %d datetimes, want %d with %d", len(tm.Mementos), len(distinct), want, wantD)
						}
					}
				case "first", "last":
					m, ok := tm.First()
					if k == "last" {
						m, ok = tm.Last()
					}
					if !ok || FormatHTTPDate(m.Datetime) != v {
						t.Errorf("%s: %v %v, want %s", k, m.Datetime, ok, v)
					}
				case "prev", "next":
					if got := firstDatetimeOf(links, k); got != v {
						t.Errorf("%s: %q, want %q", k, got, v)
					}
				case "selected":
					var sel []string
					for _, l := range links {
						if len(l.Rel) == 1 && l.Rel[0] == "memento" {
							sel = append(sel, l.Target)
						}
					}
					if strings.HasPrefix(v, "none") {
						if len(sel) != 0 {
							t.Errorf("selected: %v, want none", sel)
						}
					} else if want := strings.Fields(v)[0]; len(sel) != 1 || sel[0] != want {
						t.Errorf("selected: %v, want %s", sel, want)
					}
				case "original", "timegate":
					got := tm.Original
					if k == "timegate" {
						got = tm.TimeGate
					}
					if want := strings.Fields(v)[0]; got != want {
						t.Errorf("%s: %q, want %q", k, got, want)
					}
				case "timemap", "self":
					l := firstTargetOf(links, k)
					if l == nil {
						t.Fatalf("%s: no link", k)
					}
					if want := strings.Fields(v)[0]; strings.HasPrefix(want, "http") && l.Target != want {
						t.Errorf("%s: target %q, want %q", k, l.Target, want)
					}
					p := pageOf(l, false)
					for _, kv := range parseKVs(v) {
						var got string
						switch kv[0] {
						case "type":
							got = p.Type
						case "from":
							got = FormatHTTPDate(p.From)
						case "until":
							got = FormatHTTPDate(p.Until)
						}
						if got != kv[1] {
							t.Errorf("%s %s: %q, want %q", k, kv[0], got, kv[1])
						}
					}
					if strings.Contains(v, "no until") && !p.Until.IsZero() {
						t.Errorf("%s: until %v, want none", k, p.Until)
					}
				default:
					f := checks[k]
					if f == nil {
						t.Fatalf("expect key %q has no check", k)
					}
					if !used[k] {
						used[k] = true
						f(t, links, tm)
					}
				}
			}
		})
	}
}

// parseKVs reads "name=value" pairs (values may contain spaces and commas)
// out of an expect value such as "URI from=Tue, 20 Jun 2000 ... until=...".
func parseKVs(v string) [][2]string {
	var out [][2]string
	idx := regexp.MustCompile(`\b(type|from|until)=`).FindAllStringSubmatchIndex(v, -1)
	for i, m := range idx {
		end := len(v)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		val := strings.TrimSpace(v[m[1]:end])
		val = strings.TrimSuffix(val, ",")
		val = strings.TrimSuffix(val, " (normalised)")
		val, _, _ = strings.Cut(val, ", no ")
		out = append(out, [2]string{v[m[2]:m[3]], strings.TrimSpace(val)})
	}
	return out
}
