package webui

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/memento"
)

// benchMementos returns n mementos spread over n days from 2000, three
// archives taking turns.
func benchMementos(n int) ([]memento.Memento, int64) {
	ms := make([]memento.Memento, n)
	var size int64
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range ms {
		d := start.Add(time.Duration(i) * 24 * time.Hour)
		ms[i] = memento.Memento{URIM: fmt.Sprintf("http://archive%d.example/web/%s/http://example.com/", i%3, d.Format("20060102150405")), Datetime: d, Archive: fmt.Sprintf("a%d", i%3)}
		size += int64(len(ms[i].URIM))
	}
	return ms, size
}

func BenchmarkNavigate(b *testing.B) {
	ms, size := benchMementos(10000)
	at := ms[5000].Datetime.Add(time.Hour)
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		n := navigate(ms, at)
		if n.Closest == nil {
			b.Fatal("no closest memento")
		}
	}
}

// BenchmarkListPage renders the result page of a lookup that found 1,000
// mementos in three archives (SetBytes: the page's size).
func BenchmarkListPage(b *testing.B) {
	var archives []aggregator.Archive
	for i := range 3 {
		archives = append(archives, aggregator.Archive{ID: fmt.Sprintf("a%d", i), Name: fmt.Sprintf("Archive %d", i),
			TimeMap: "http://127.0.0.1:1/tm/", TimeGate: "http://127.0.0.1:1/tg/"})
	}
	ag, err := aggregator.New(&aggregator.Options{Archives: archives})
	if err != nil {
		b.Fatal(err)
	}
	defer ag.Close()
	u, err := New(&Options{Aggregator: ag})
	if err != nil {
		b.Fatal(err)
	}
	ms, _ := benchMementos(1000)
	res := &aggregator.Result{URIR: "http://example.com/", Kind: aggregator.Dynamic, Mementos: ms, At: time.Now()}
	for _, a := range archives {
		res.Outcomes = append(res.Outcomes, aggregator.Outcome{Archive: a.ID, Status: aggregator.StatusFound, Mementos: 333, Elapsed: 20 * time.Millisecond})
	}
	ans := &aggregator.Answer{URIR: res.URIR, Mementos: ms, Status: 200, Source: aggregator.FromSearch, Scenario: "unknown", Updated: res.At, Result: res}
	at := ms[500].Datetime
	p := u.page(nil, ans.URIR, "2001-05-15")
	rec := httptest.NewRecorder()
	p.Result = u.view(ans, at)
	u.render(rec, 200, "list.html", p)
	b.ReportAllocs()
	b.SetBytes(int64(rec.Body.Len()))
	for b.Loop() {
		rec := httptest.NewRecorder()
		p.Result = u.view(ans, at)
		u.render(rec, 200, "list.html", p)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
