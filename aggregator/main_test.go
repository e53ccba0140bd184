package aggregator

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMain fails the run when goroutines started by the tests outlive them
// (searches, workers, map refreshers, fake archives).
func TestMain(m *testing.M) {
	base := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		if leaked := waitGoroutines(base); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutine leak: %d running at start, still running:\n%s\n", base, leaked)
			code = 1
		}
	}
	os.Exit(code)
}

func waitGoroutines(base int) string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		if t, ok := http.DefaultTransport.(*http.Transport); ok {
			t.CloseIdleConnections()
		}
		if runtime.NumGoroutine() <= base {
			return ""
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			stacks := string(buf[:runtime.Stack(buf, true)])
			var ours []string
			for _, g := range strings.Split(stacks, "\n\n") {
				if strings.Contains(g, "mementokit") && !strings.Contains(g, "TestMain") {
					ours = append(ours, g)
				}
			}
			if len(ours) == 0 {
				return "" // only runtime or library goroutines winding down
			}
			return strings.Join(ours, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
