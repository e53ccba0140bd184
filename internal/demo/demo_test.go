package demo

import (
	"context"
	"io"
	"testing"
	"time"
)

func TestDemoRoutingSavesWithFullRecall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()
	sum, err := Run(ctx, &Config{Gen: 80, Seed: 1, Workers: 4, Rows: 0}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Recall != 1 {
		t.Errorf("recall %.4f, want 1", sum.Recall)
	}
	if sum.Saved < 0.6 {
		t.Errorf("routing saved %.1f %% of upstream requests, want at least 60 %%", 100*sum.Saved)
	}
	if sum.Failures != 0 {
		t.Errorf("%d lookups failed", sum.Failures)
	}
	if sum.MementosAll != sum.MementosTruth || sum.MementosRouted != sum.MementosAll {
		t.Errorf("mementos: routed %d, all %d, indexes %d; want all equal", sum.MementosRouted, sum.MementosAll, sum.MementosTruth)
	}
	// every real index URI-R (about 90) plus the generated ones, and as many absent
	if sum.Held < 90 || sum.Absent != sum.Held {
		t.Errorf("held %d, absent %d", sum.Held, sum.Absent)
	}
	if sum.RequestsAll != 3*(sum.Held+sum.Absent) {
		t.Errorf("without routing %d upstream requests, want 3 per URI-R (%d)", sum.RequestsAll, 3*(sum.Held+sum.Absent))
	}
}
