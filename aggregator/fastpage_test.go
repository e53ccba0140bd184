package aggregator

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/memento"
)

// readerPage is what timeMapPage takes from the general reader: the
// specification fastPage must meet whenever it accepts an input.
func readerPage(body string) (ms []memento.Memento, next []string, links int, err error) {
	rd := memento.NewReader(strings.NewReader(body), &memento.ParseOptions{Base: "http://arc.example/timemap/link/http://ex.com/"})
	for {
		l, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return ms, next, links, nil
		}
		if err != nil {
			return nil, nil, 0, err
		}
		if l.HasRel("original") || l.IsMemento() || l.HasRel("timemap") || l.HasRel("timegate") || l.HasRel("self") {
			links++
		}
		switch {
		case l.IsMemento():
			ms = append(ms, linkMemento(l)) // the zero Datetime without a readable one
		case l.HasRel("timemap") && !l.HasRel("self"):
			next = append(next, l.Target)
		}
	}
}

var fastPageSeeds = []struct {
	name, body string
	fast       bool // fastPage accepts it
}{
	{"wayback", "<http://ex.com/>; rel=\"original\",\n<http://arc/timegate/http://ex.com/>; rel=\"timegate\",\n" +
		"<http://arc/timemap/link/http://ex.com/>; rel=\"self\"; type=\"application/link-format\"; from=\"Tue, 20 Jun 2000 18:02:59 GMT\",\n" +
		"<http://arc/web/20000620180259/http://ex.com/>; rel=\"first memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\",\n" +
		"<http://arc/web/20010620180259/http://ex.com/>; rel=\"last memento\"; datetime=\"Wed, 20 Jun 2001 18:02:59 GMT\"\n", true},
	{"pages", "<http://ex.com/>;rel=\"original\", <https://arc/p/2>; rel=\"timemap\"; from=\"x\", <https://arc/p/1>; rel=\"self timemap\"", true},
	{"unquoted-rel-and-upper-case", "<http://arc/web/1/x>; REL=MEMENTO; DateTime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", true},
	{"second-rel-ignored", "<http://arc/web/1/x>; rel=\"original\"; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", true},
	{"lenient-datetime", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 UTC\"", true},
	{"bad-datetime-dropped", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"soon\",<http://arc/web/2/x>; rel=\"memento\"", true},
	{"day-out-of-range", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Thu, 31 Apr 2010 12:00:00 GMT\"", true},
	{"zero-time", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Mon, 01 Jan 0001 00:00:00 GMT\"", true},
	{"year-zero", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Sat, 01 Jan 0000 00:00:00 GMT\"", true},
	{"leap-second", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Sat, 31 Dec 2016 23:59:60 GMT\"", true},
	{"wayback-params-then-more", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"; collection=\"c\"; datetime=\"Wed, 21 Jun 2000 18:02:59 GMT\",\n" +
		"<http://arc/web/2/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:03:00 GMT\" ,<http://arc/web/3/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:03:01 GMT\"", true},
	{"wayback-params-short-date", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02 GMT\"; x=\"Tue, 20 Jun 2000 18:02:59 GMT\"", true},
	{"empty", "", true},
	{"wayback-params-quote-in-date", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 \"8:02:59 GMT\"", false},
	{"wayback-params-backslash-in-date", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 \\8:02:59 GMT\"", false},
	{"relative-target", "</web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"gt-in-target", "<http://arc/web/1/a>b>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"space-around-equals", "<http://arc/web/1/x>; rel = \"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"escaped-quote", "<http://arc/web/1/x>; rel=\"memento\"; title=\"a\\\"b\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"missing-comma", "<http://arc/web/1/x>; rel=\"memento\" <http://arc/web/2/x>; rel=\"memento\"", false},
	{"html", "<!doctype html><html><body>Not found</body></html>", false},
	{"upper-case-scheme", "<HTTP://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"non-ascii-target", "<http://arc/web/1/é>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
}

// fastPage agrees with the general reader on the inputs it accepts, and
// accepts the plain layouts archives write.
func TestFastPageMatchesReader(t *testing.T) {
	for _, tc := range fastPageSeeds {
		t.Run(tc.name, func(t *testing.T) {
			ms, next, links, ok := fastPage(tc.body, false)
			if ok != tc.fast {
				t.Fatalf("fastPage accepted = %v, want %v", ok, tc.fast)
			}
			if !ok {
				return
			}
			wms, wnext, wlinks, err := readerPage(tc.body)
			if err != nil {
				t.Fatalf("the general reader refuses what fastPage accepted: %v", err)
			}
			if diff := cmp.Diff([]any{wms, wnext, wlinks}, []any{ms, next, links}); diff != "" {
				t.Errorf("fastPage differs from the general reader (-reader +fast):\n%s", diff)
			}
		})
	}
}

func FuzzFastPageMatchesReader(f *testing.F) {
	for _, tc := range fastPageSeeds {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		ms, next, links, ok := fastPage(body, false)
		if !ok {
			return
		}
		wms, wnext, wlinks, err := readerPage(body)
		if err != nil {
			t.Fatalf("the general reader refuses what fastPage accepted: %v", err)
		}
		if diff := cmp.Diff([]any{wms, wnext, wlinks}, []any{ms, next, links}); diff != "" {
			t.Errorf("fastPage differs from the general reader (-reader +fast):\n%s", diff)
		}
	})
}

// readerCutPage is what timeMapPage takes from the general reader when
// the body's reading failed after body: the mementos and links before the
// read error, or the parse error that came first.
func readerCutPage(body string) (ms []memento.Memento, links int, err error) {
	cutErr := errors.New("cut")
	rd := memento.NewReader(io.MultiReader(strings.NewReader(body), errReader{cutErr}), &memento.ParseOptions{Base: "http://arc.example/timemap/link/http://ex.com/"})
	for {
		l, err := rd.Read()
		if errors.Is(err, cutErr) {
			return ms, links, nil
		}
		if err != nil {
			return nil, 0, err
		}
		if l.HasRel("original") || l.IsMemento() || l.HasRel("timemap") || l.HasRel("timegate") || l.HasRel("self") {
			links++
		}
		if l.IsMemento() {
			ms = append(ms, linkMemento(l))
		}
	}
}

// checkCut: fastPage(body, true), when it accepts body, gives the
// general reader's mementos and link count before the read error.
func checkCut(t *testing.T, body string) {
	t.Helper()
	ms, _, links, ok := fastPage(body, true)
	if !ok {
		return
	}
	wms, wlinks, err := readerCutPage(body)
	if err != nil {
		t.Fatalf("the general reader refuses the cut body fastPage accepted: %v", err)
	}
	if len(ms) == 0 {
		ms = nil
	}
	if diff := cmp.Diff([]any{wms, wlinks}, []any{ms, links}); diff != "" {
		t.Errorf("fastPage of a cut body differs from the general reader (-reader +fast):\n%s", diff)
	}
}

// TestFastPageCutMatchesReader: every prefix of the seeds, read as the
// start of a body cut there (a cap, a broken connection).
func TestFastPageCutMatchesReader(t *testing.T) {
	accepted := 0
	for _, tc := range fastPageSeeds {
		for n := range len(tc.body) + 1 {
			checkCut(t, tc.body[:n])
			if _, _, _, ok := fastPage(tc.body[:n], true); ok {
				accepted++
			}
		}
	}
	if accepted < 500 {
		t.Errorf("fastPage accepted %d cut seeds, want most of the plain ones", accepted)
	}
}

func FuzzFastPageCutMatchesReader(f *testing.F) {
	for _, tc := range fastPageSeeds {
		f.Add(tc.body)
	}
	f.Fuzz(checkCut)
}

// dayCacheCases are datetimes read one after the other by one dayCache:
// same days with other times, weekdays, spellings and invalid times, the
// zero time's day, a day that does not exist.
var dayCacheCases = []string{
	"Tue, 20 Jun 2000 18:02:59 GMT", "Tue, 20 Jun 2000 18:03:00 GMT", "Wed, 20 Jun 2000 00:00:00 GMT",
	"Xyz, 20 Jun 2000 01:00:00 GMT", "Tue, 20 Jun 2000 24:00:00 GMT", "Tue, 20 Jun 2000 23:59:60 GMT",
	"Tue, 20 Jun 2000 1:00:00 GMT", "Tue, 20 Jun 2000 01:00:00 UTC", "tue, 20 jun 2000 02:00:00 gmt",
	"Tue, 20 jun 2000 03:00:00 GMT", "Tue, 20 jun 2000 04:00:00 GMT", "Mon, 01 Jan 0001 00:00:01 GMT",
	"Mon, 01 Jan 0001 00:00:00 GMT", "Mon, 31 Apr 2001 10:00:00 GMT", "Mon, 31 Apr 2001 11:00:00 GMT",
	"Sat, 29 Feb 2020 23:59:59 GMT", "Sun, 29 Feb 2020 00:00:00 GMT", "Sun, 29 Feb 2021 00:00:00 GMT",
	"Tue, 20 Jun 2000 18:02:59 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
	"Thu, 01 Jan 1970 00:00:00 GMT", "Wed, 31 Dec 1969 23:59:59 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
	"Tue, 20 Jun 2000 18:0a:59 GMT", "Tue, 20 Jun 2000 18:02:59 GMTX",
}

// TestDayCacheMatchesParse: a dayCache reads every datetime of a
// sequence as memento.ParseHTTPDateLenient does (in UTC, at whole
// seconds, the zero time for one it refuses).
func TestDayCacheMatchesParse(t *testing.T) {
	var c dayCache
	hits := 0
	for _, dt := range dayCacheCases {
		if c.date != "" && len(dt) == 29 && dt[5:16] == c.date {
			hits++
		}
		if got, want := c.parse(dt), refDatetime(dt); !got.Equal(want) || got.Location() != want.Location() {
			t.Errorf("parse(%q) = %v, want %v", dt, got, want)
		}
	}
	if hits < 5 {
		t.Errorf("%d datetimes of the day read before, want at least 5", hits)
	}
}

// FuzzDayCacheMatchesParse: after a first datetime, a second one is read
// by the dayCache as memento.ParseHTTPDateLenient reads it.
func FuzzDayCacheMatchesParse(f *testing.F) {
	for i := 1; i < len(dayCacheCases); i++ {
		f.Add(dayCacheCases[i-1], dayCacheCases[i])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var c dayCache
		for _, dt := range []string{a, b} {
			if got, want := c.parse(dt), refDatetime(dt); !got.Equal(want) || got.Location() != want.Location() {
				t.Fatalf("after %q: parse(%q) = %v, want %v", a, dt, got, want)
			}
		}
	})
}

// refDatetime is the datetime the general path gives dt.
func refDatetime(dt string) time.Time {
	lt, err := memento.ParseHTTPDateLenient(dt)
	if err != nil {
		return time.Time{}
	}
	return lt.UTC().Truncate(time.Second)
}

// checkSeeds are pages whose URI-Ms or datetimes the check of an
// archive's answer (cleanMementos) changes or drops, one memento each,
// and one it keeps as it is.
var checkSeeds = []struct {
	name, body string
	asIs       bool // cleanMementos keeps the list as it is
}{
	{"plain", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\",\n<https://arc/web/2/x?a=%20b#f>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 19:02:59 GMT\"", true},
	{"no-host", "<http:///web/1/x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"query-no-host", "<https://?x>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"empty-host", "<http://>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"stray-percent", "<http://arc/web/1/100%>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"percent-not-hex", "<http://arc/web/1/%zz>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"brace", "<http://arc/web/1/{x}>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"pipe-caret-backtick", "<http://arc/web/1/a|b^c`d>; rel=\"memento\"; datetime=\"Tue, 20 Jun 2000 18:02:59 GMT\"", false},
	{"no-datetime", "<http://arc/web/1/x>; rel=\"memento\"", false},
	{"too-old", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Sat, 01 Jan 0500 00:00:00 GMT\"", false},
	{"year-zero", "<http://arc/web/1/x>; rel=\"memento\"; datetime=\"Sat, 01 Jan 0000 00:00:00 GMT\"", false},
}

// checkedAsIs reports whether the fast path's count of mementos the
// check would change (pageState.unclean) is right: none exactly when
// cleanMementos returns the list as it is.
func checkedAsIs(t *testing.T, body string) (asIs, ok bool) {
	t.Helper()
	var st pageState
	ms, _, _, ok := fastPageInto(body, false, nil, 0, 0, &st)
	if !ok {
		return false, false
	}
	kept := cleanMementos(ms)
	asIs = len(kept) == len(ms) && (len(ms) == 0 || &kept[0] == &ms[0])
	if (st.unclean == 0) != asIs {
		t.Errorf("%q: %d mementos counted as changed by the check; the check keeps the list as it is: %v", body, st.unclean, asIs)
	}
	return asIs, true
}

// TestFastPageCheck: the fast path counts the mementos the check of an
// archive's answer would change or drop, so that the search skips the
// check only for lists it keeps as they are.
func TestFastPageCheck(t *testing.T) {
	for _, tc := range checkSeeds {
		asIs, ok := checkedAsIs(t, tc.body)
		if !ok || asIs != tc.asIs {
			t.Errorf("%s: fast %v, kept as it is %v, want true, %v", tc.name, ok, asIs, tc.asIs)
		}
	}
	for _, tc := range fastPageSeeds {
		checkedAsIs(t, tc.body)
	}
}

func FuzzFastPageCheck(f *testing.F) {
	for _, tc := range checkSeeds {
		f.Add(tc.body)
	}
	for _, tc := range fastPageSeeds {
		f.Add(tc.body)
	}
	f.Fuzz(func(t *testing.T, body string) { checkedAsIs(t, body) })
}
