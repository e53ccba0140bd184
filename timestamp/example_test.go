package timestamp_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

func ExampleParse() {
	for _, s := range []string{"2005", "200101011200", "20230426095158263", "20141", "20050230"} {
		t, err := timestamp.Parse(s)
		if err != nil {
			fmt.Println(s, "error:", errors.Is(err, timestamp.ErrInvalid))
			continue
		}
		fmt.Println(s, t.Format(time.RFC3339Nano))
	}
	// Output:
	// 2005 2005-01-01T00:00:00Z
	// 200101011200 2001-01-01T12:00:00Z
	// 20230426095158263 2023-04-26T09:51:58.263Z
	// 20141 2014-10-01T00:00:00Z
	// 20050230 error: true
}

func ExampleFormat() {
	fmt.Println(timestamp.Format(time.Date(2010, 5, 15, 1, 18, 57, 0, time.FixedZone("CEST", 2*3600))))
	fmt.Println(timestamp.Format(time.Date(2023, 4, 26, 9, 51, 58, 263e6, time.UTC)))
	// Output:
	// 20100514231857
	// 20230426095158263
}

func ExampleBounds() {
	lo, hi, err := timestamp.Bounds("2014", "201402")
	if err != nil {
		panic(err)
	}
	fmt.Println(lo, hi)
	for _, ts := range []string{"20131231235959", "20140215", "20140228235959999", "20140301000000"} {
		fmt.Println(ts, timestamp.InRange([]byte(ts), lo, hi))
	}
	// Output:
	// 20140101000000 20140228235959
	// 20131231235959 false
	// 20140215 true
	// 20140228235959999 true
	// 20140301000000 false
}

func ExampleLatest() {
	d, err := timestamp.Latest("202402")
	if err != nil {
		panic(err)
	}
	fmt.Println(d, d.Time().Format(time.RFC3339Nano))
	// Output:
	// 20240229235959999 2024-02-29T23:59:59.999Z
}
