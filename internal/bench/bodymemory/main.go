// Command bodymemory measures the peak resident memory (VmHWM) of an
// aggregator server (the examples/aggregator binary given by -aggregator)
// answering -parallel TimeMap requests at once without a cache, every one
// from a 127.0.0.1 archive (in this process) whose link-format TimeMap
// holds -mementos mementos (112 bytes each: 1,000,000 make 112 MB, cut at
// the aggregator's MaxBodyBytes of 32 MiB). It prints one line per run: the
// status codes of the answers, the bytes answered, the server's VmHWM
// from /proc/PID/status, and the body memory budget /about reports (where
// the binary has it).
//
//	go build -o /tmp/agg ./examples/aggregator
//	go run ./internal/bench/bodymemory -aggregator /tmp/agg -parallel 8 -- -body-memory 64MiB
//
// The answers take their turns within the budget, each waiting at most
// -body-memory-wait (10s): on a loaded machine pass a longer one
// (-- -body-memory 64MiB -body-memory-wait 5m) to see every answer.
//
// Flags after "--" are passed to the server.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { benchutil.Main(run) }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := benchutil.NewFlagSet("Peak resident memory of an aggregator server answering parallel uncached 1 M-memento TimeMaps.", stderr)
	bin := fs.String("aggregator", "", "the examples/aggregator `binary` to run")
	parallel := fs.Int("parallel", 8, "`N` TimeMap requests at once")
	mementos := fs.Int("mementos", 1000000, "`N` mementos in the archive's TimeMap of every URI-R")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if *bin == "" {
		return cli.Usagef("-aggregator is required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	arch := &http.Server{Handler: timeMaps(ln.Addr().String(), *mementos)}
	go arch.Serve(ln)
	defer arch.Close()

	dir, err := os.MkdirTemp("", "bench-bodymemory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	list := filepath.Join(dir, "archives.json")
	base := "http://" + ln.Addr().String()
	if err := os.WriteFile(list, fmt.Appendf(nil, `[{"id":"big","name":"Big","timemap":"%s/timemap/link/","timegate":"%s/timegate/","probability":1}]`, base, base), 0o644); err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, *bin, append([]string{"-addr", addr, "-cache", "none", "-archives", list, "-data-dir", dir,
		"-request-timeout", "10m", "-thorough-budget", "10m", "-dynamic-budget", "10m", "-log-level", "error"}, fs.Args()...)...)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	srv := "http://" + addr
	if err := waitUp(ctx, srv+"/about"); err != nil {
		return err
	}
	codes := make([]int, *parallel)
	sizes := make([]int64, *parallel)
	errs := make([]error, *parallel)
	var wg sync.WaitGroup
	for i := range *parallel {
		wg.Go(func() {
			resp, err := http.Get(fmt.Sprintf("%s/timemap/link/http://example.com/%d", srv, i))
			if err != nil {
				errs[i] = err
				return
			}
			defer resp.Body.Close()
			codes[i] = resp.StatusCode
			sizes[i], errs[i] = io.Copy(io.Discard, resp.Body)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	hwm, err := vmHWM(cmd.Process.Pid)
	if err != nil {
		return err
	}
	count := map[int]int{}
	var total int64
	for i, c := range codes {
		count[c]++
		total += sizes[i]
	}
	var cs []string
	for c, n := range count {
		cs = append(cs, fmt.Sprintf("%d×%d", n, c))
	}
	sort.Strings(cs)
	fmt.Fprintf(stdout, "parallel %d, %d mementos, server flags %q: answers %s, %d bytes; VmHWM %s; /about body_memory %s\n",
		*parallel, *mementos, fs.Args(), strings.Join(cs, " "), total, hwm, aboutBudget(srv+"/about"))
	return nil
}

// timeMaps answers /timemap/link/{URI-R} with a link-format TimeMap of n
// mementos a minute apart from 1996, generated while written.
func timeMaps(host string, n int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		urir, ok := strings.CutPrefix(r.URL.Path, "/timemap/link/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/link-format")
		bw := bufio.NewWriterSize(w, 1<<16)
		fmt.Fprintf(bw, "<%s>; rel=\"original\",\n<http://%s/timemap/link/%s>; rel=\"self\"; type=\"application/link-format\",\n", urir, host, urir)
		t := time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			ts := t.Add(time.Duration(i) * time.Minute)
			if _, err := fmt.Fprintf(bw, "<http://%s/web/%s/%s>; rel=\"memento\"; datetime=\"%s\",\n", host, ts.Format("20060102150405"), urir, ts.Format(http.TimeFormat)); err != nil {
				return // the aggregator cut the body
			}
		}
		bw.Flush()
	})
}

// freeAddr is a 127.0.0.1 address with a port free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitUp polls url until it answers, for at most a minute.
func waitUp(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the server did not answer %s: %w", url, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// vmHWM is the VmHWM line's value of /proc/PID/status ("1785988 kB").
func vmHWM(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("/proc/%d/status has no VmHWM line", pid)
}

// aboutBudget is the body_memory object of /about's JSON, or "-" where
// the server has none.
func aboutBudget(url string) string {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "-"
	}
	defer resp.Body.Close()
	var doc struct {
		BodyMemory map[string]int64 `json:"body_memory"`
	}
	if json.NewDecoder(resp.Body).Decode(&doc) != nil || doc.BodyMemory == nil {
		return "-"
	}
	return fmt.Sprintf("limit %d, peak %d, refused %d memory-busy, %d over-memory-budget", doc.BodyMemory["limit"], doc.BodyMemory["peak"],
		doc.BodyMemory["refused_memory_busy"], doc.BodyMemory["refused_over_memory_budget"])
}
