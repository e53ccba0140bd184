package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCachedTimeMapParallel is BenchmarkCachedTimeMap from 200
// goroutines at once, with the access log (NewLogger, JSON) written to a
// file, as a deployment under load writes it. cpu-ns/op: the process's
// user+system CPU per request (getrusage), the figure a shared machine
// disturbs least.
func BenchmarkCachedTimeMapParallel(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := newTestServer(b, func(c *Config) {
		var err error
		if c.Logger, err = c.NewLogger(f); err != nil {
			b.Fatal(err)
		}
	})
	req := httptest.NewRequest("GET", "/timemap/link/"+held, nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("warm-up: %d %s", rec.Code, rec.Body)
	}
	b.ReportAllocs()
	b.SetParallelism(100)
	cpu0 := processCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Error(rec.Code)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
