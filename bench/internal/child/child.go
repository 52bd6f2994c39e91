// Package child measures child processes for the benchmark programs under bench/: the wall
// time, the CPU time and the peak resident memory of a command, and the medians of several
// runs.
package child

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Sample is what one run of a child process cost, or the medians of several.
type Sample struct {
	Wall   time.Duration
	CPU    time.Duration // user + system, the child's and its waited-for descendants'
	MaxRSS int64         // bytes: the largest resident set of the child or one of its descendants
}

// Usage reads the CPU time and peak RSS of a process that has ended.
func Usage(ps *os.ProcessState) (cpu time.Duration, maxRSS int64, err error) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, errors.New("no rusage for child processes on this system")
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, ru.Maxrss * 1024, nil // Maxrss is in kilobytes on Linux
}

// Run runs a command in dir ("" for the working directory) with env added to the environment
// and returns its cost and standard output. A failure carries the end of its standard error.
func Run(ctx context.Context, dir string, env []string, name string, args ...string) (Sample, []byte, error) {
	return RunWatched(ctx, dir, env, nil, name, args...)
}

// RunWatched is Run that calls started, when not nil, with the child's process id once it runs.
func RunWatched(ctx context.Context, dir string, env []string, started func(pid int), name string, args ...string) (Sample, []byte, error) {
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
	s := Sample{Wall: time.Since(start)}
	if err != nil {
		return s, stdout.Bytes(), fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, Tail(stderr.Bytes(), 2000))
	}
	var uerr error
	s.CPU, s.MaxRSS, uerr = Usage(cmd.ProcessState)
	return s, stdout.Bytes(), uerr
}

// Tail returns at most the last n bytes of b, cut at a line.
func Tail(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[len(b)-n:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return b
}

// Series is the samples of one measured thing, one a run.
type Series []Sample

// Median returns the median of each figure on its own (for an even count, the upper middle).
func (s Series) Median() Sample {
	if len(s) == 0 {
		return Sample{}
	}
	pick := func(f func(Sample) int64) int64 {
		v := make([]int64, len(s))
		for i, x := range s {
			v[i] = f(x)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return Sample{
		Wall:   time.Duration(pick(func(x Sample) int64 { return int64(x.Wall) })),
		CPU:    time.Duration(pick(func(x Sample) int64 { return int64(x.CPU) })),
		MaxRSS: pick(func(x Sample) int64 { return x.MaxRSS }),
	}
}

// Spread returns the smallest and the largest wall time of s.
func (s Series) Spread() (lo, hi time.Duration) {
	for i, x := range s {
		if i == 0 || x.Wall < lo {
			lo = x.Wall
		}
		if x.Wall > hi {
			hi = x.Wall
		}
	}
	return lo, hi
}

// WritegenRoot asks the go command for the directory of the writegen module, which the
// programs build the generator from and read the test data of. Run in the bench module (bench/,
// a module of its own), it is the directory its go.mod's replace names: the repository's root.
func WritegenRoot(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/writegen/writegen")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/writegen/writegen: %v: run it in the bench module (cd bench)\n%s", err, Tail(stderr.Bytes(), 1000))
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", errors.New("the writegen module has no directory: run it in the bench module (cd bench)")
	}
	return dir, nil
}
