//go:build linux

package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Server is a mariadbd of the test's own: its own data folder, port and
// socket, so that killing or freezing it (Kill, Stop) leaves the shared
// server on 127.0.0.1:3306 alone. It is ended with SIGKILL when the test
// ends, and by the kernel should the test binary die.
type Server struct {
	t       testing.TB
	bin     string
	dir     string
	port    int
	mu      sync.Mutex
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

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// args keeps the private server small: it only has to survive faults.
// Its temporary files go to a folder of its own: a mariadbd deletes every
// "#sql*" file in its tmpdir when it starts, and with the default (/tmp)
// each start of a private server deleted the internal temporary tables
// of statements running on the shared server at that moment (which then
// failed with "Error on delete of '/tmp/#sql-temptable-...MAI'").
func (s *Server) args() []string {
	a := []string{"--no-defaults", "--datadir=" + filepath.Join(s.dir, "data"), "--tmpdir=" + filepath.Join(s.dir, "tmp"),
		"--innodb-buffer-pool-size=16M", "--innodb-log-file-size=4M"}
	if os.Geteuid() == 0 {
		a = append(a, "--user=root")
	}
	return a
}

// NewServer installs a fresh data folder and starts a mariadbd on a free
// 127.0.0.1 port. Without mariadbd and mariadb-install-db the test is
// skipped, or fails when MEMENTOKIT_REQUIRE_MYSQL=1.
func NewServer(t testing.TB) *Server {
	t.Helper()
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
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: dir, port: freePort(t)}
	args := append(s.args(), "--auth-root-authentication-method=normal", "--skip-test-db")
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, out)
	}
	t.Cleanup(s.Kill)
	s.Start()
	return s
}

// Start starts the server (again, after Kill) and waits until it listens.
func (s *Server) Start() {
	s.t.Helper()
	s.mu.Lock()
	s.started++
	n := s.started
	s.mu.Unlock()
	args := append(s.args(),
		"--socket="+filepath.Join(s.dir, "sock"), "--pid-file="+filepath.Join(s.dir, "pid"),
		fmt.Sprintf("--port=%d", s.port), "--bind-address=127.0.0.1",
		"--skip-grant-tables", "--skip-name-resolve",
		"--log-error="+filepath.Join(s.dir, fmt.Sprintf("error%d.log", n)))
	cmd := exec.Command(s.bin, args...)
	// Should the test binary die, the kernel ends the server too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start mariadbd: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.cmd, s.exited = cmd, exited
	s.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.Addr(), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(s.dir, fmt.Sprintf("error%d.log", n)))
			s.t.Fatalf("mariadbd exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("mariadbd does not listen on %s after 30 s", s.Addr())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Kill ends the server with SIGKILL (no shutdown, as a crash) and waits.
// It is safe to call when the server is not running.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, exited := s.cmd, s.exited
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Kill()
	<-exited
}

// Stop freezes the server with SIGSTOP: connections stay open and nothing
// answers, as a server that hangs. It returns once the kernel reports the
// process stopped. Cont resumes it.
func (s *Server) Stop() {
	s.t.Helper()
	pid := s.signal(syscall.SIGSTOP)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			// pid (comm) state ...: the state follows the last ')'.
			if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
				return
			}
		}
	}
	s.t.Fatalf("mariadbd (pid %d) is not stopped 5 s after SIGSTOP", pid)
}

// Cont resumes a server frozen by Stop.
func (s *Server) Cont() {
	s.t.Helper()
	s.signal(syscall.SIGCONT)
}

func (s *Server) signal(sig syscall.Signal) int {
	s.t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		s.t.Fatalf("mariadbd is not running")
	}
	if err := cmd.Process.Signal(sig); err != nil {
		s.t.Fatalf("signal %v to mariadbd: %v", sig, err)
	}
	return cmd.Process.Pid
}

// Addr is the server's host:port on 127.0.0.1.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// Config is a driver configuration for root over TCP, no database
// selected, with a 2 s dial timeout.
func (s *Server) Config() *mysql.Config {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "tcp", s.Addr()
	cfg.Timeout = 2 * time.Second
	return cfg
}

// Database creates a database named prefix plus 12 random hex digits on
// the private server and returns a DSN that selects it (the server, and
// the database with it, goes when the test ends).
func (s *Server) Database(prefix string) string {
	s.t.Helper()
	db, err := sql.Open("mysql", s.Config().FormatDSN())
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		s.t.Fatalf("create database %s: %v", name, err)
	}
	c := s.Config()
	c.DBName = name
	return c.FormatDSN()
}
