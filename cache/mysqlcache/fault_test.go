//go:build linux

package mysqlcache_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

// privateServer is a mariadbd of the test's own: its own data folder, port
// and socket, so that killing it leaves the shared server alone.
type privateServer struct {
	t       *testing.T
	bin     string
	dir     string
	port    int
	cmd     *exec.Cmd
	exited  chan struct{}
	started int
}

func findBinary(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, d := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// serverArgs keeps the private server small: it only has to survive a kill.
func (s *privateServer) args() []string {
	a := []string{"--no-defaults", "--datadir=" + filepath.Join(s.dir, "data"),
		"--innodb-buffer-pool-size=16M", "--innodb-log-file-size=4M"}
	if os.Geteuid() == 0 {
		a = append(a, "--user=root")
	}
	return a
}

func newPrivateServer(t *testing.T) *privateServer {
	bin, install := findBinary("mariadbd"), findBinary("mariadb-install-db")
	if bin == "" || install == "" {
		if os.Getenv("MEMENTOKIT_REQUIRE_MYSQL") == "1" {
			t.Fatalf("mariadbd (%q) or mariadb-install-db (%q) not found and MEMENTOKIT_REQUIRE_MYSQL=1", bin, install)
		}
		t.Skip("mariadbd or mariadb-install-db not installed")
	}
	// A short folder: the socket path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "mkfault")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &privateServer{t: t, bin: bin, dir: dir, port: freePort(t)}
	args := append(s.args(), "--auth-root-authentication-method=normal", "--skip-test-db")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	t.Cleanup(s.kill)
	s.start()
	return s
}

func (s *privateServer) start() {
	s.t.Helper()
	s.started++
	args := append(s.args(),
		"--socket="+filepath.Join(s.dir, "sock"), "--pid-file="+filepath.Join(s.dir, "pid"),
		fmt.Sprintf("--port=%d", s.port), "--bind-address=127.0.0.1",
		"--skip-grant-tables", "--skip-name-resolve",
		"--log-error="+filepath.Join(s.dir, fmt.Sprintf("error%d.log", s.started)))
	s.cmd = exec.Command(s.bin, args...)
	// Should the test binary die, the kernel ends the server too.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start mariadbd: %v", err)
	}
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(s.cmd, s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr(), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-s.exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, fmt.Sprintf("error%d.log", s.started)))
			s.t.Fatalf("mariadbd exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("mariadbd does not listen on %s after 30 s", s.addr())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill ends the server with SIGKILL (no shutdown, as a crash) and waits.
func (s *privateServer) kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	<-s.exited
	s.cmd = nil
}

func (s *privateServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

func (s *privateServer) config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", s.addr()
	cfg.Timeout = 2 * time.Second
	return cfg
}

// TestKillAndRestart kills the database with SIGKILL twice, then freezes it
// with SIGSTOP, while a writer and a reader are busy: calls fail with
// *cache.Error within their deadline (no panic, no hang), the same store
// works again once the server is back, and every Put that returned nil is
// there afterwards.
func TestKillAndRestart(t *testing.T) {
	srv := newPrivateServer(t)
	dsn := createDB(t, srv.config())
	ctx := context.Background()
	octx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := mysqlcache.Open(octx, dsn, &mysqlcache.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	const callTimeout = 2 * time.Second
	// A hang shows as a call that never returns (the SIGSTOP phase would
	// block forever without a deadline); the slack is generous so that a
	// loaded 2-core machine running -race does not make it fail.
	const slack = 10 * time.Second
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	result := func(i int) cache.Result {
		var ms []cache.Memento
		for j := range 1 + i%7 {
			ms = append(ms, cache.Memento{URIM: fmt.Sprintf("https://a.example/%d/%d", j, i),
				Datetime: t0.Add(time.Duration(j) * time.Hour), Archive: fmt.Sprint("arch", j%3), Rel: "memento"})
		}
		return cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: ms}
	}

	var (
		mu        sync.Mutex
		succeeded []int
		failures  int
		phase     int // 0 before the first kill, then 1, 2, ...: successes per phase
		perPhase  = map[int]int{}
	)
	call := func(name string, f func(ctx context.Context) error) error {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		start := time.Now()
		err := f(ctx)
		if d := time.Since(start); d > callTimeout+slack {
			t.Errorf("%s took %v, past its %v deadline", name, d, callTimeout)
		}
		var se *cache.Error
		if err != nil && !errors.As(err, &se) {
			t.Errorf("%s failed with %T %v, want a *cache.Error", name, err, err)
		}
		return err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // writer
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := call("Put", func(ctx context.Context) error {
				return c.Put(ctx, fmt.Sprintf("http://fault.example/%d", i), result(i))
			})
			mu.Lock()
			if err == nil {
				succeeded = append(succeeded, i)
				perPhase[phase]++
			} else {
				failures++
			}
			mu.Unlock()
			if err != nil {
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	wg.Go(func() { // reader and queue user
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			call("Get", func(ctx context.Context) error {
				_, err := c.Get(ctx, cache.KeyOf(fmt.Sprintf("fault.example/%d", i/3)))
				if errors.Is(err, cache.ErrNotFound) {
					return nil
				}
				return err
			})
			call("Enqueue", func(ctx context.Context) error {
				return c.Enqueue(ctx, fmt.Sprintf("http://fault.example/%d", i), cache.PriorityLive, t0)
			})
			call("Claim", func(ctx context.Context) error {
				_, err := c.Claim(ctx, "w", t0)
				if errors.Is(err, cache.ErrNoJob) {
					return nil
				}
				return err
			})
			time.Sleep(5 * time.Millisecond)
		}
	})
	waitFor := func(n int) {
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			got := perPhase[phase]
			mu.Unlock()
			if got >= n {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("phase %d: fewer than %d successful Puts in 15 s: the store did not recover", phase, n)
	}
	for round := range 2 {
		waitFor(20)
		srv.kill()
		mu.Lock()
		phase++
		mu.Unlock()
		// A Put committed just before the kill may report success just
		// after it; from then on, while the server is down, none may.
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		before := perPhase[phase]
		mu.Unlock()
		time.Sleep(500 * time.Millisecond)
		mu.Lock()
		downOK := perPhase[phase] - before
		mu.Unlock()
		if downOK != 0 {
			t.Errorf("round %d: %d Puts succeeded with the server down", round, downOK)
		}
		srv.start()
	}
	// A server that hangs (SIGSTOP) rather than dies: calls must end at
	// their deadline, and work again after SIGCONT.
	waitFor(20)
	if err := srv.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	phase++
	mu.Unlock()
	time.Sleep(callTimeout + time.Second)
	if err := srv.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitFor(20)
	close(stop)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if failures == 0 {
		t.Error("no Put failed while the server was down: the kill did not happen")
	}
	t.Logf("%d Puts succeeded, %d failed across 2 kills and a freeze", len(succeeded), failures)
	for _, i := range succeeded {
		vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		e, err := c.Get(vctx, cache.KeyOf(fmt.Sprintf("fault.example/%d", i)))
		cancel()
		if err != nil {
			t.Errorf("Put %d returned success but Get fails: %v", i, err)
			continue
		}
		want, _ := cache.CheckResult(result(i))
		if diff := cmp.Diff(want.Mementos, e.Mementos); diff != "" {
			t.Errorf("Put %d: mementos after the restarts (-want +got):\n%s", i, diff)
		}
	}
}
