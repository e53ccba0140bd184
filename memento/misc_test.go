package memento

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

func TestErrorMessages(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&Error{Op: "timemap", URI: "http://a/tm", StatusCode: 503, Err: ErrStatus}, `memento: timemap "http://a/tm": HTTP 503: unexpected HTTP status`},
		{&Error{Op: "timegate", URI: "http://a/tg", Err: context.DeadlineExceeded}, `memento: timegate "http://a/tg": context deadline exceeded`},
		{&ParseError{Offset: 321, Link: 4, Err: ErrNotToken}, `memento: link-format error at byte 321 (link 4): unquoted value is not a token`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	e := &Error{Op: "timegate", URI: "u", Err: context.DeadlineExceeded}
	if !e.Timeout() || e.NotFound() {
		t.Error("deadline: Timeout false or NotFound true")
	}
	if (&Error{Err: ErrStatus}).Timeout() {
		t.Error("status error reported as timeout")
	}
}

func TestSelectionEmptyAndOutOfRange(t *testing.T) {
	tm := &TimeMap{}
	now := time.Now()
	if _, ok := tm.First(); ok {
		t.Error("First on empty")
	}
	if _, ok := tm.Last(); ok {
		t.Error("Last on empty")
	}
	if _, ok := tm.Closest(now); ok {
		t.Error("Closest on empty")
	}
	for _, i := range []int{-1, 0, 5} {
		if _, ok := tm.Prev(i); ok {
			t.Errorf("Prev(%d) on empty", i)
		}
		if _, ok := tm.Next(i); ok {
			t.Errorf("Next(%d) on empty", i)
		}
		if tm.PrevIndex(i) != -1 || tm.NextIndex(i) != -1 || tm.SameSecond(i) != nil {
			t.Errorf("index %d accepted on empty TimeMap", i)
		}
	}
	one := &TimeMap{Mementos: []Memento{{URIM: "http://a/1", Datetime: now.UTC().Truncate(time.Second)}}}
	if _, ok := one.Prev(0); ok {
		t.Error("Prev of the only memento")
	}
	if _, ok := one.Next(0); ok {
		t.Error("Next of the only memento")
	}
	if m, ok := one.Last(); !ok || m.URIM != "http://a/1" {
		t.Error("Last of one")
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"plain", `q"b\s`, "tab\tnl\ncr\r", "\x00\x1f", "é&<>", "bad\xffutf8", "ls\u2028ps\u2029"} {
		b := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%q -> %s: %v", s, b, err)
			continue
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if back != want {
			t.Errorf("%q -> %s -> %q", s, b, back)
		}
		if strings.Contains(s, "&") && !bytes.Contains(b, []byte("&<>")) {
			t.Errorf("%q: HTML characters escaped: %s", s, b)
		}
	}
}

func TestReadFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		cdxj     bool
		want     string
	}{
		{"json syntax", `{"original_uri": `, false, "malformed TimeMap"},
		{"json datetime", `{"mementos": {"list": [{"datetime": "yesterday", "uri": "http://a/1"}]}}`, false, "list[0]"},
		{"json uri", `{"mementos": {"list": [{"datetime": "2001-01-01T00:00:00Z"}]}}`, false, "list[0]"},
		{"cdxj no value", "!context [\"x\"]\n20010101000000\n", true, "line 2"},
		{"cdxj bad json", "20010101000000 {\"uri\": \n", true, "line 1"},
		{"cdxj no uri", "20010101000000 {}\n", true, "line 1"},
		{"cdxj bad datetime", "20010101000000 {\"uri\": \"u\", \"datetime\": \"2001\"}\n", true, "line 1"},
		{"cdxj bad key", "2001x {\"uri\": \"u\"}\n", true, "line 1"},
		{"cdxj bad meta", "!meta {\n", true, "line 1"},
		{"cdxj long line", "20010101000000 {\"uri\": \"" + strings.Repeat("a", 2<<20) + "\"}\n", true, "token too long"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.cdxj {
				_, err = ReadCDXJ(strings.NewReader(tc.in))
			} else {
				_, err = ReadJSON(strings.NewReader(tc.in))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want it to mention %q", err, tc.want)
			}
			if tc.name != "cdxj long line" && !errors.Is(err, ErrFormat) {
				t.Errorf("err %v does not wrap ErrFormat", err)
			}
		})
	}
	// A CDXJ line without a datetime takes the key's.
	tm, err := ReadCDXJ(strings.NewReader("20010203040506 {\"uri\": \"u\"}\n"))
	if err != nil || timestamp.Format(tm.Mementos[0].Datetime) != "20010203040506" {
		t.Errorf("%v %v", tm, err)
	}
	_, err = ReadTimeTravelJSON(strings.NewReader(`{"mementos": {"closest": {"datetime": "2001-01-01T00:00:00Z", "uri": 5}}}`))
	if !errors.Is(err, ErrFormat) {
		t.Errorf("Time Travel uri 5: %v", err)
	}
}

func TestReaderOffset(t *testing.T) {
	r := NewReader(strings.NewReader(`<a>; rel=x, <b>; rel=y`), nil)
	if _, err := r.Read(); err != nil || r.Offset() != 11 {
		t.Errorf("after first link: offset %d, %v", r.Offset(), err)
	}
	if _, err := r.Read(); err != nil || r.Offset() != 22 {
		t.Errorf("after second link: offset %d, %v", r.Offset(), err)
	}
}

// TestClientLogger checks that the optional logger receives the client's
// debug records and the TimeMap's dropped links.
func TestClientLogger(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{"/tm": serve(200, `<http://m/1>; rel="memento"; datetime="soon"`)})
	var buf bytes.Buffer
	c := &Client{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	tm, err := c.FetchTimeMap(context.Background(), a.URL+"/tm")
	if err != nil || tm.Invalid != 1 {
		t.Fatalf("%+v %v", tm, err)
	}
	for _, want := range []string{"memento: response", "status=200", "memento: dropped memento link", "datetime=soon"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
}
