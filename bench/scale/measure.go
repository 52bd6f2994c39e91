package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// sample is what one run of a child process cost.
type sample struct {
	wall   time.Duration
	cpu    time.Duration // user + system, the child's and its waited-for descendants'
	maxRSS int64         // bytes: the largest resident set of the child or one of its descendants
}

// usage reads the CPU time and peak RSS of a process that has ended.
func usage(ps *os.ProcessState) (cpu time.Duration, maxRSS int64, err error) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, errors.New("no rusage for child processes on this system")
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, ru.Maxrss * 1024, nil // Maxrss is in kilobytes on Linux
}

// runChild runs a command in dir with env added to the environment and returns its cost and
// standard output. A failure carries the end of its standard error.
func runChild(ctx context.Context, dir string, env []string, name string, args ...string) (sample, []byte, error) {
	return runWatched(ctx, dir, env, nil, name, args...)
}

// runWatched is runChild that calls started with the child's process id once it runs.
func runWatched(ctx context.Context, dir string, env []string, started func(pid int), name string, args ...string) (sample, []byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Start()
	if err == nil {
		if started != nil {
			started(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
	s := sample{wall: time.Since(start)}
	if err != nil {
		return s, stdout.Bytes(), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(stderr.Bytes(), 2000))
	}
	var uerr error
	s.cpu, s.maxRSS, uerr = usage(cmd.ProcessState)
	return s, stdout.Bytes(), uerr
}

// tail returns at most the last n bytes of b, cut at a line.
func tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}

// series is the samples of one measured thing, one a run.
type series []sample

// median returns the median of each figure on its own (for an even count, the upper middle).
func (s series) median() sample {
	if len(s) == 0 {
		return sample{}
	}
	pick := func(f func(sample) int64) int64 {
		v := make([]int64, len(s))
		for i, x := range s {
			v[i] = f(x)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sample{
		wall:   time.Duration(pick(func(x sample) int64 { return int64(x.wall) })),
		cpu:    time.Duration(pick(func(x sample) int64 { return int64(x.cpu) })),
		maxRSS: pick(func(x sample) int64 { return x.maxRSS }),
	}
}

// spread returns the smallest and the largest wall time of s.
func (s series) spread() (lo, hi time.Duration) {
	for i, x := range s {
		if i == 0 || x.wall < lo {
			lo = x.wall
		}
		if x.wall > hi {
			hi = x.wall
		}
	}
	return lo, hi
}

// toolexecMode is the first argument that makes this program run as the go command's
// -toolexec wrapper: toolexecMode LOG TOOL ARGS... runs the tool and appends its cost to LOG.
const toolexecMode = "-toolexec-log"

// toolRecord is one line of a toolexec log: one run of a compiler tool.
type toolRecord struct {
	Tool    string `json:"tool"`    // "compile", "asm", ...
	Package string `json:"package"` // the import path the go command builds
	Wall    int64  `json:"wall_ns"`
	CPU     int64  `json:"cpu_ns"`
	MaxRSS  int64  `json:"max_rss"`
}

// toolexec runs a tool as the go command asked and logs what it cost. It returns the exit
// status to end with.
func toolexec(log string, tool string, args []string) int {
	cmd := exec.Command(tool, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "scale: toolexec:", err)
		return 1
	}
	if slices.Contains(args, "-V=full") { // the go command asks the tool's version: nothing to log
		return cmd.ProcessState.ExitCode()
	}
	cpu, rss, uerr := usage(cmd.ProcessState)
	if uerr != nil {
		fmt.Fprintln(os.Stderr, "scale: toolexec:", uerr)
		return 1
	}
	name := tool[strings.LastIndexAny(tool, `/\`)+1:]
	name = strings.TrimSuffix(name, ".exe")
	line, _ := json.Marshal(toolRecord{Tool: name, Package: os.Getenv("TOOLEXEC_IMPORTPATH"),
		Wall: int64(wall), CPU: int64(cpu), MaxRSS: rss})
	f, ferr := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if ferr == nil {
		_, ferr = f.Write(append(line, '\n')) // one short write: lines of parallel tools do not mix
		ferr = errors.Join(ferr, f.Close())
	}
	if ferr != nil {
		fmt.Fprintln(os.Stderr, "scale: toolexec:", ferr)
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

// readToolLog returns the records of a toolexec log.
func readToolLog(path string) ([]toolRecord, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []toolRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r toolRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

// loadAverage returns the first line of /proc/loadavg, or "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// durationOf converts nanoseconds from a toolexec log.
func durationOf(ns int64) time.Duration { return time.Duration(ns) }
