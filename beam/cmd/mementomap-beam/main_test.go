package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/cdxservertest"
	"github.com/mementokit/mementokit/mementomap"
)

// The tests run the command as a child process: this test binary again,
// told by mainEnv to run main with the arguments it is given.
const mainEnv = "MEMENTOMAP_BEAM_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Args = append([]string{"mementomap-beam"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// run runs the command in dir and returns its exit code, standard output
// and standard error.
func run(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatal(err)
	return 0, "", ""
}

// genLines returns n sorted cdxgen lines (without line ends).
func genLines(t *testing.T, n int64) []string {
	t.Helper()
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: n, Seed: 7}).Write(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// writeLines writes lines to dir/name and returns its path.
func writeLines(t *testing.T, dir, name string, lines []string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkOneLine checks that stderr is one line holding each of want and
// nothing of a runner's report.
func checkOneLine(t *testing.T, stderr string, want ...string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("standard error is not one line:\n%s", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("standard error %q does not hold %q", stderr, w)
		}
	}
	for _, bad := range []string{"DataSource", "bundle", ".beam-"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("standard error %q holds %q", stderr, bad)
		}
	}
}

// TestFailuresOneLine: every failure, before the run (an output in a
// missing folder) or in it (a bad line of an input), is one line on
// standard error naming the output or the input file and line, exit
// status 1, and nothing written.
func TestFailuresOneLine(t *testing.T) {
	dir := t.TempDir()
	lines := genLines(t, 2000)
	writeLines(t, dir, "good.cdxj", lines)
	lines[1500] = strings.TrimSuffix(lines[1500], "}") + `, "x": "unterminated}`
	writeLines(t, dir, "bad.cdxj", lines)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing output folder", []string{"--input", "good.cdxj", "--output", "no/a.map"}, []string{"output no/a.map", "no such file or directory"}},
		{"missing compact folder", []string{"--input", "good.cdxj", "--output", "a.map", "--compact", "no/c.map"}, []string{"output no/c.map"}},
		{"bad line", []string{"--input", "bad.cdxj", "--output", "a.map", "--summary", "a.summary", "--shard-size", "64KiB"}, []string{"bad.cdxj: line 1501", "invalid JSON block"}},
		{"output is a folder", []string{"--input", "good.cdxj", "--output", "."}, []string{"output . is a folder"}},
		{"output is the input", []string{"--input", "good.cdxj", "--output", "good.cdxj"}, []string{"output good.cdxj is the input good.cdxj"}},
		{"bad --output -", []string{"--input", "good.cdxj", "--output", "-"}, []string{"--output -", "name a file"}},
		{"bad --summary -", []string{"--input", "good.cdxj", "--output", "a.map", "--summary", "-"}, []string{"--summary -"}},
		{"bad --shard-size 1", []string{"--input", "good.cdxj", "--output", "a.map", "--shard-size", "1"}, []string{"--shard-size 1", "4KiB"}},
		{"bad --shard-size overflow", []string{"--input", "good.cdxj", "--output", "a.map", "--shard-size", "18014398509481985k"}, []string{"--shard-size", "invalid size"}},
		{"bad --updated-at", []string{"--input", "good.cdxj", "--output", "a.map", "--updated-at", "yesterday"}, []string{"--updated-at", "yesterday"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, dir, tc.args...)
			want := 1
			if strings.HasPrefix(tc.name, "bad --") {
				want = 2
			}
			if code != want {
				t.Errorf("exit status %d, want %d", code, want)
			}
			checkOneLine(t, stderr, tc.want...)
			ents, _ := os.ReadDir(dir)
			if len(ents) != 2 {
				for _, e := range ents {
					t.Errorf("in the folder: %s", e.Name())
				}
			}
		})
	}
}

// TestUpdatedAt: with --updated-at two runs give the same bytes, those of
// the single-process build with the same instant.
func TestUpdatedAt(t *testing.T) {
	dir := t.TempDir()
	in := writeLines(t, dir, "index.cdxj", genLines(t, 3000))
	var maps [][]byte
	for _, out := range []string{"a.map", "b.map"} {
		code, stdout, stderr := run(t, dir, "--input", "index.cdxj", "--output", out, "--updated-at", "2026-12-01T00:00:00Z", "--shard-size", "128KiB")
		if code != 0 {
			t.Fatalf("exit status %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, out+": 3000 records") {
			t.Errorf("standard output %q", stdout)
		}
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, b)
	}
	if !bytes.Equal(maps[0], maps[1]) {
		t.Error("two runs with one --updated-at differ")
	}
	ix, err := cdxj.Open(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var want bytes.Buffer
	if _, err := mementomap.Build(context.Background(), &want, []cdxj.Searcher{ix}, &mementomap.BuildOptions{Now: func() time.Time { return at }}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(maps[0], want.Bytes()) {
		t.Errorf("the map differs from the single-process build's (%d and %d bytes)", len(maps[0]), want.Len())
	}
	if !bytes.Contains(maps[0], []byte(`2026-12-01T00:00:00Z`)) {
		t.Errorf("the map's headers do not hold the instant:\n%.400s", maps[0])
	}
}

// TestPlanLine: with -v the plan is logged with its parts and its input
// files counted after the glob is expanded.
func TestPlanLine(t *testing.T) {
	dir := t.TempDir()
	l := genLines(t, 1000)
	k := len(l) / 2 // cut between two authorities: two parts, one a file
	for bytes.Equal(cdxj.Authority([]byte(l[k-1])), cdxj.Authority([]byte(l[k]))) {
		k++
	}
	writeLines(t, dir, "a.cdxj", l[:k])
	writeLines(t, dir, "b.cdxj", l[k:])
	code, _, stderr := run(t, dir, "-v", "--input", "*.cdxj", "--output", "a.map")
	if code != 0 {
		t.Fatalf("exit status %d: %.2000s", code, stderr)
	}
	if !strings.Contains(stderr, "2 parts of 2 inputs (") {
		t.Errorf("standard error has no line \"2 parts of 2 inputs (...\":\n%.2000s", stderr)
	}
}

// TestVerboseFailureOnce: with -v, the error of a failed part (a bad
// line) is logged once, in the runner's report of its bundle, and ends
// standard error as the one line of every failure; prism's repeats of the
// report as it stops the stage and the job are left out, its other lines
// kept.
func TestVerboseFailureOnce(t *testing.T) {
	dir := t.TempDir()
	lines := genLines(t, 2000)
	lines[1500] = strings.TrimSuffix(lines[1500], "}") + `, "x": "unterminated}`
	writeLines(t, dir, "bad.cdxj", lines)
	for range 3 { // prism's logs of a failure vary from run to run
		code, _, stderr := run(t, dir, "-v", "--input", "bad.cdxj", "--output", "a.map")
		if code != 1 {
			t.Fatalf("exit status %d, want 1", code)
		}
		const msg = "bad.cdxj: line 1501"
		if n := strings.Count(stderr, msg); n != 2 {
			t.Errorf("standard error holds %q %d times, want 2 (one log record, the last line):\n%.3000s", msg, n, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "mementomap-beam: ") || !strings.Contains(last, msg) {
			t.Errorf("the last line is %q, want the failure", last)
		}
		if !strings.Contains(stderr, "Job[job-001] state: RUNNING") && !strings.Contains(stderr, "level=INFO") {
			t.Errorf("the runner's progress is not logged:\n%.2000s", stderr)
		}
	}
}

// TestUsageErrors: a missing or bad flag, an unknown runner or --async is
// one line on standard error naming the flag, exit status 2, before
// anything is read or written; --dry_run prints the plan and writes
// nothing.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	writeLines(t, dir, "good.cdxj", genLines(t, 500))
	in := []string{"--input", "good.cdxj", "--output", "a.map"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"no input", []string{"--output", "a.map"}, []string{"--input is required"}},
		{"no output", []string{"--input", "good.cdxj"}, []string{"--output is required"}},
		{"argument", append(in, "extra"), []string{`unexpected argument "extra"`}},
		{"bogus runner", append(in, "--runner", "bogus"), []string{"--runner bogus", "no such runner"}},
		{"async", append(in, "--async"), []string{"--async", "not supported"}},
		{"negative hcf", append(in, "--compact", "c.map", "--hcf", "-1"), []string{"--hcf -1"}},
		{"NaN pcf", append(in, "--pcf", "NaN"), []string{"--pcf NaN"}},
		{"negative pieces", append(in, "--compact-pieces", "-3"), []string{"--compact-pieces -3"}},
		{"status class", append(in, "--status", "2,7"), []string{"--status 7"}},
		{"shard size", append(in, "--shard-size", "-5"), []string{"--shard-size", `"-5"`}},
		{"unknown flag", append(in, "--no-such-flag"), []string{"flag provided but not defined: -no-such-flag", "(run with -h for usage)"}},
		{"bad flag value", append(in, "--compact-pieces", "many"), []string{"-compact-pieces", "(run with -h for usage)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(t, dir, tc.args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2 (standard output %q)", code, stdout)
			}
			checkOneLine(t, stderr, tc.want...)
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				for _, e := range ents {
					t.Errorf("in the folder: %s", e.Name())
				}
			}
		})
	}
	t.Run("dry run", func(t *testing.T) {
		code, stdout, stderr := run(t, dir, append(in, "--shard-size", "16KiB", "--dry_run")...)
		if code != 0 {
			t.Fatalf("exit status %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "nothing run, nothing written") || !strings.Contains(stdout, "  part 0 of ") {
			t.Errorf("standard output %q", stdout)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			for _, e := range ents {
				t.Errorf("in the folder: %s", e.Name())
			}
		}
	})
}

// TestCDXServerInput: a CDX server URL input is read for the part that
// --domain, --url-prefix or the URL's own url= and matchType= choose, and
// gives the map that the same lines in a flat file give.
func TestCDXServerInput(t *testing.T) {
	dir := t.TempDir()
	lines := genLines(t, 3000)
	all := writeLines(t, dir, "all.cdxj", lines)
	endpoint, _ := cdxservertest.Serve(t, all)
	key := string(cdxj.Authority([]byte(lines[len(lines)/2])))
	labels := strings.Split(strings.TrimSuffix(key, ")"), ",")
	slices.Reverse(labels)
	host := strings.Join(labels, ".")
	want := cdxservertest.DomainLines(lines, strings.TrimSuffix(key, ")"))
	if len(want) == 0 || len(want) == len(lines) {
		t.Fatalf("host %s (key %s) holds %d of %d lines", host, key, len(want), len(lines))
	}
	writeLines(t, dir, "host.cdxj", want)
	at := []string{"--updated-at", "2026-12-01T00:00:00Z"}
	read := func(out string, args ...string) []byte {
		t.Helper()
		code, stdout, stderr := run(t, dir, append(append(args, "--output", out), at...)...)
		if code != 0 {
			t.Fatalf("%v: exit status %d: %s", args, code, stderr)
		}
		if !strings.Contains(stdout, fmt.Sprintf("%s: %d records", out, len(want))) {
			t.Errorf("%v: standard output %q, want %d records", args, stdout, len(want))
		}
		b, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	flat := read("flat.map", "--input", "host.cdxj")
	for i, args := range [][]string{
		{"--input", endpoint, "--domain", host},
		{"--input", endpoint + "?url=" + host + "&matchType=domain"},
	} {
		if got := read(fmt.Sprintf("server%d.map", i), args...); !bytes.Equal(got, flat) {
			t.Errorf("%v: the map differs from the flat file's (%d and %d bytes)", args, len(got), len(flat))
		}
	}
	code, _, stderr := run(t, dir, "--input", "all.cdxj", "--output", "x.map", "--domain", host)
	if code != 2 {
		t.Errorf("--domain without a CDX server input: exit status %d", code)
	}
	checkOneLine(t, stderr, "--domain", "no input is one")
}

// TestFewerPartsNote: an input cut into fewer parts than --shard-size
// asks for (a gzip file is one part) is noted in one line on standard
// error, and the run goes on.
func TestFewerPartsNote(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(strings.Join(genLines(t, 3000), "\n") + "\n"))
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, "index.cdxj.gz"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, "--input", "index.cdxj.gz", "--output", "a.map", "--shard-size", "4KiB")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	asked := (b.Len() + 4095) / 4096
	checkOneLine(t, stderr, fmt.Sprintf("note: 1 part, not the %d that --shard-size 4KiB asks for", asked))
	if !strings.Contains(stdout, "a.map: 3000 records") {
		t.Errorf("standard output %q", stdout)
	}
}

// start starts the command in dir, its standard error in the returned
// buffer.
func start(t *testing.T, dir string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// TestInterrupt: SIGINT during the run stops it: one line naming the
// signal, the stage and the outputs, exit status 130, no output and no
// temporary folder left.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	writeLines(t, dir, "index.cdxj", genLines(t, 60000))
	cmd, stderr := start(t, dir, "--input", "index.cdxj", "--output", "a.map", "--summary", "a.summary", "--shard-size", "64KiB")
	// Wait for the run's temporary folder: the plan is made, the pipeline runs.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if m, _ := filepath.Glob(filepath.Join(dir, ".a.map.beam-*")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no temporary folder appeared")
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v, want status 130; standard error:\n%s", err, stderr)
	}
	// The plan's note of fewer parts (cdxgen's hosts are large) may come
	// first.
	msg := stderr.String()
	if i := strings.Index(msg, "\n"); strings.HasPrefix(msg, "mementomap-beam: note: ") && i >= 0 {
		msg = msg[i+1:]
	}
	checkOneLine(t, msg, "interrupted by SIGINT while running the pipeline", "no output was written (a.map, a.summary)")
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		for _, e := range ents {
			t.Errorf("in the folder: %s", e.Name())
		}
	}
}

// TestDryRunWhileLocked: --dry_run plans while another run holds the
// output folder's lock, and writes nothing; a run then fails naming the
// folder.
func TestDryRunWhileLocked(t *testing.T) {
	dir := t.TempDir()
	writeLines(t, dir, "index.cdxj", genLines(t, 3000))
	l, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := syscall.Flock(int(l.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, dir, "--input", "index.cdxj", "--output", "a.map", "--shard-size", "64KiB", "--dry_run")
	if code != 0 || !strings.Contains(stdout, "--dry_run: nothing run, nothing written") || !strings.Contains(stdout, "  part 1 of ") {
		t.Errorf("dry run: exit status %d, standard output %q, standard error %q", code, stdout, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the folder holds %d entries after the dry run", len(ents))
	}
	code, _, stderr = run(t, dir, "--input", "index.cdxj", "--output", "a.map")
	if code != 1 {
		t.Errorf("run: exit status %d, want 1", code)
	}
	checkOneLine(t, stderr, "is in use by another run")
}

// TestStaleFolderRemoved: a temporary folder left by a killed run on the
// same output is removed by the next run, which says so.
func TestStaleFolderRemoved(t *testing.T) {
	dir := t.TempDir()
	writeLines(t, dir, "index.cdxj", genLines(t, 1000))
	stale := filepath.Join(dir, ".a.map.beam-4242")
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "map-00000"), []byte("left by a killed run\n"), 0o644)
	code, _, stderr := run(t, dir, "--input", "index.cdxj", "--output", "a.map")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "removed .a.map.beam-4242, the temporary folder of an earlier run that was killed") {
		t.Errorf("standard error %q does not name the stale folder", stderr)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s is left: %v", stale, err)
	}
}

// TestOutputNotWritable: an output in a folder the run may not write
// fails before the run, exit status 1, naming the output (as root, the
// command runs as nobody, for whom the folder is not writable).
func TestOutputNotWritable(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	writeLines(t, dir, "index.cdxj", genLines(t, 1000))
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		// The folder of the map output (the run's temporary folder) is
		// writable by anyone; ro/ only by its owner. nobody runs a link
		// of the test binary in dir (its own folder may be closed to it).
		os.Chmod(filepath.Dir(dir), 0o755)
		os.Chmod(dir, 0o777)
		link := filepath.Join(dir, "command.test")
		if err := os.Link(exe, link); err != nil {
			t.Skipf("linking the test binary into %s: %v", dir, err)
		}
		defer os.Remove(link)
		exe, cred = link, &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	cmd := exec.Command(exe, "--input", "index.cdxj", "--output", "a.map", "--summary", "ro/a.summary")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	} else {
		os.Chmod(ro, 0o555)
		defer os.Chmod(ro, 0o755)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1; standard error:\n%s", err, stderr.String())
	}
	checkOneLine(t, stderr.String(), "output ro/a.summary cannot be put in place", "permission denied")
	if ents, _ := os.ReadDir(ro); len(ents) != 0 {
		t.Errorf("ro/ holds %d entries", len(ents))
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); n != "index.cdxj" && n != "ro" && n != "command.test" {
			t.Errorf("in the folder: %s", n)
		}
	}
}

// TestMemFlag: the sort memory is -mem, as in the other binaries, with
// their wording from "sort memory before spilling runs to" and their
// default (mementomap.DefaultSortMemory, 96MiB); -memory is no flag.
func TestMemFlag(t *testing.T) {
	dir := t.TempDir()
	writeLines(t, dir, "good.cdxj", genLines(t, 500))
	code, stdout, _ := run(t, dir, "-h")
	_, help, ok := strings.Cut(stdout, "\n  -mem value\n")
	help, _, _ = strings.Cut(help, "\n  -")
	if code != 0 || !ok || !strings.Contains(help, "sort memory before spilling runs to --temp-dir") || !strings.Contains(help, "(96MiB, 1GiB, or bytes) (default 96MiB)") || strings.Contains(stdout, "-memory") {
		t.Errorf("-h: exit status %d, -mem's help %q (found %v)", code, help, ok)
	}
	in := []string{"--input", "good.cdxj", "--output", "a.map", "--shard-size", "16KiB", "--dry_run"}
	if code, _, stderr := run(t, dir, append(in, "--mem", "1GiB")...); code != 0 {
		t.Errorf("--mem 1GiB: exit status %d: %s", code, stderr)
	}
	code, _, stderr := run(t, dir, append(in, "--mem", "lots")...)
	if code != 2 {
		t.Errorf("--mem lots: exit status %d, want 2", code)
	}
	checkOneLine(t, stderr, "-mem", "lots")
	code, _, stderr = run(t, dir, append(in, "--memory", "1GiB")...)
	if code != 2 {
		t.Errorf("--memory: exit status %d, want 2", code)
	}
	checkOneLine(t, stderr, "flag provided but not defined: -memory")
}

// TestBlankLinesCounted: blank lines of an input (inside, a trailing one)
// fail nothing; the pipeline's map is the single-process build's, which
// counts them in !meta blank_lines, and the report says how many.
func TestBlankLinesCounted(t *testing.T) {
	dir := t.TempDir()
	lines := genLines(t, 3000)
	for i := 500; i < len(lines); i += 700 {
		lines[i] += "\n" // a blank line after it
	}
	in := writeLines(t, dir, "index.cdxj", append(lines, ""))
	const blanks = 5 // after lines 500, 1200, 1900, 2600, and the trailing one
	code, stdout, stderr := run(t, dir, "--input", "index.cdxj", "--output", "a.map", "--updated-at", "2026-12-01T00:00:00Z", "--shard-size", "64KiB")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "a.map: 3000 records") || !strings.Contains(stdout, fmt.Sprintf("blank lines passed over (empty: no record; the map's !meta blank_lines): %d\n", blanks)) {
		t.Errorf("standard output %q", stdout)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a.map"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := cdxj.Open(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var want bytes.Buffer
	if _, err := mementomap.Build(context.Background(), &want, []cdxj.Searcher{ix}, &mementomap.BuildOptions{Now: func() time.Time { return at }}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || !bytes.Contains(got, []byte(fmt.Sprintf(`"blank_lines":%d`, blanks))) {
		t.Errorf("the map differs from the single-process build's or lacks blank_lines %d:\n%.400s", blanks, got)
	}
}
