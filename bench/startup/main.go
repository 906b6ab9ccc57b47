// Command startup is `make bench-startup` (issue 20): it starts a bare
// Wails app (bench/startup/bare, the floor) and jean-claude alternately,
// each on its own Xvfb with a fresh HOME, and measures time to window,
// time to first content (the window's pixels stop being one flat colour)
// and idle PSS at +10 s (at least 5 s after first content) summed over the app and its WebKit processes.
// It prints every run, the medians and the ratios ours/floor.
//
//	go run ./bench/startup -floor build/bin/bench-bare -app build/bin/jean-claude
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

type config struct {
	floor, app string
	runs       int
	idle       time.Duration
	timeout    time.Duration
	shots      string
	shotsEvery time.Duration
	shotsFor   time.Duration
	appEnv     []string
	onlyApp    bool
	nice       int
	seedDB     string
	smaps      string
	floorTitle string
}

type target struct {
	name, bin, title string
	env              []string
}

func main() {
	var c config
	var env string
	flag.StringVar(&c.floor, "floor", "build/bin/bench-bare", "the bare Wails app (floor)")
	flag.StringVar(&c.app, "app", "build/bin/jean-claude", "the real app")
	flag.IntVar(&c.runs, "runs", 5, "runs of each, alternating")
	flag.DurationVar(&c.idle, "idle", 10*time.Second, "when to sample idle memory, after launch")
	flag.DurationVar(&c.timeout, "timeout", 30*time.Second, "give up on a run after this")
	flag.StringVar(&c.shots, "shots", "", "save the app's window frames during its first run into this directory (from the window's mapping to -shots-for after first content)")
	flag.DurationVar(&c.shotsEvery, "shots-every", 100*time.Millisecond, "interval between saved frames")
	flag.DurationVar(&c.shotsFor, "shots-for", time.Second, "how long after first content frames are saved")
	flag.StringVar(&env, "app-env", "", "extra environment for the real app, comma-separated KEY=VALUE (renderer experiments)")
	flag.BoolVar(&c.onlyApp, "only-app", false, "skip the floor")
	flag.StringVar(&c.seedDB, "db", "", "copy this database into the real app's fresh profile (e.g. with projects, for -shots)")
	flag.StringVar(&c.smaps, "smaps", "", "save each process's /proc/PID/smaps at the idle sample into this directory (TARGET-RUN-COMM.smaps), to see where the memory is")
	flag.StringVar(&c.floorTitle, "floor-title", "Bare", "the floor's window title (Jean-Claude: -floor is another build of the app, for an A/B)")
	flag.IntVar(&c.nice, "nice", 0, "run Xvfb and the apps under nice -n N (e.g. -10 as root on a machine busy with other work)")
	flag.Parse()
	if env != "" {
		c.appEnv = strings.Split(env, ",")
	}
	// A closed stdout (| head) must not kill the tool before it stops the
	// apps and Xvfb it started.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "bench-startup:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	targets := []target{{name: "floor", bin: c.floor, title: c.floorTitle}, {name: "ours", bin: c.app, title: "Jean-Claude", env: c.appEnv}}
	if c.onlyApp {
		targets = targets[1:]
	}
	for i := range targets {
		abs, err := filepath.Abs(targets[i].bin)
		if err != nil {
			return err
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("%s: %w", targets[i].name, err)
		}
		targets[i].bin = abs
	}
	results := map[string][]result{}
	fmt.Printf("%-6s %-4s %10s %12s %12s %9s  %s\n", "app", "run", "window ms", "content ms", "black frames", "PSS MB", "PSS by process")
	for i := 0; i < c.runs; i++ {
		for _, t := range targets {
			shots := ""
			if i == 0 && t.name == "ours" {
				shots = c.shots
			}
			r, err := measure(ctx, c, t, shots, i+1)
			if err != nil {
				return fmt.Errorf("%s run %d: %w", t.name, i+1, err)
			}
			results[t.name] = append(results[t.name], r)
			fmt.Printf("%-6s %-4d %10d %12d %12d %9.1f  %s\n", t.name, i+1, r.window.Milliseconds(), r.content.Milliseconds(), r.blackFrames, r.pss.total(), r.pss)
		}
	}
	fmt.Println()
	for _, t := range targets {
		m := medians(results[t.name])
		fmt.Printf("median %-5s: window %5d ms, first content %5d ms, idle PSS %6.1f MB (%d runs)\n", t.name, m.window.Milliseconds(), m.content.Milliseconds(), m.pssMB, len(results[t.name]))
	}
	if !c.onlyApp {
		f, o := medians(results["floor"]), medians(results["ours"])
		fmt.Printf("ratio ours/floor: time to window %.2f, first content %.2f (goal <= 1.2), idle PSS %.2f (goal <= 1.2)\n",
			ratio(o.window, f.window), ratio(o.content, f.content), o.pssMB/f.pssMB)
	}
	return nil
}

type summary struct {
	window, content time.Duration
	pssMB           float64
}

func medians(rs []result) summary {
	var w, c []time.Duration
	var p []float64
	for _, r := range rs {
		w, c, p = append(w, r.window), append(c, r.content), append(p, r.pss.total())
	}
	sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	sort.Float64s(p)
	return summary{window: w[len(w)/2], content: c[len(c)/2], pssMB: p[len(p)/2]}
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
