package accesslog_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mementokit/mementokit/aggregator/accesslog"
)

// A Combined-format log read for its lookups: the URI-R of each request
// and, where the path names one, its datetime; a line of no log format is
// counted and named, never dropped silently.
func ExampleReader_Read() {
	log := `127.0.0.1 - - [10/Oct/2020:13:55:36 -0700] "GET /timemap/link/http://example.com/ HTTP/1.1" 200 2326 "-" "curl/8.0"
127.0.0.1 - - [10/Oct/2020:13:55:38 -0700] "GET /memento/20150314/http://example.com/a HTTP/1.1" 302 0 "-" "curl/8.0"
127.0.0.1 - - [10/Oct/2020:13:55:39 -0700] "GET /static/app.css HTTP/1.1" 200 512 "-" "curl/8.0"
not a log line
`
	r := accesslog.NewReader(nil)
	err := r.Read(context.Background(), strings.NewReader(log), "access.log", func(l accesslog.Lookup) error {
		at := "-"
		if !l.Datetime.IsZero() {
			at = l.Datetime.Format("2006-01-02")
		}
		fmt.Printf("%s:%d %s %s\n", l.File, l.Line, l.URIR, at)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	st := r.Stats()
	fmt.Printf("format %s: %d lines, %d lookups, %d other, %d bad (line %d)\n",
		st.Formats[0], st.Lines, st.Lookups, st.Other, st.Bad, st.BadLines[0].Line)
	// Output:
	// access.log:1 http://example.com/ -
	// access.log:2 http://example.com/a 2015-03-14
	// format combined: 4 lines, 2 lookups, 1 other, 1 bad (line 4)
}
