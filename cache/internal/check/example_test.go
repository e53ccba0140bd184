package check_test

import (
	"fmt"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/internal/check"
)

// Result normalises what a store keeps: times in UTC at second precision,
// mementos in order with exact duplicates removed; a memento without an
// archive id is refused by its index.
func ExampleResult() {
	paris := time.FixedZone("CET", 3600)
	m := cache.StoredMemento{URIM: "https://web.archive.org/web/20200101000000/http://example.org/",
		Datetime: time.Date(2020, 1, 1, 1, 0, 0, 500_000_000, paris), Archive: "ia"}
	r, err := check.Result(cache.Result{Status: cache.StatusFound, Updated: m.Datetime, Mementos: []cache.StoredMemento{m, m}})
	fmt.Println(len(r.Mementos), r.Mementos[0].Datetime, err)

	m.Archive = ""
	_, err = check.Result(cache.Result{Status: cache.StatusFound, Updated: m.Datetime, Mementos: []cache.StoredMemento{m}})
	fmt.Println(err)
	// Output:
	// 1 2020-01-01 00:00:00 +0000 UTC <nil>
	// cache: invalid argument: memento 0 archive is empty
}
