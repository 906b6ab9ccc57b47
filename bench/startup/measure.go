package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type result struct {
	window, content time.Duration
	blackFrames     int
	pss             pssByProcess
}

// measure runs one launch of t on a fresh Xvfb with a fresh profile.
func measure(ctx context.Context, c config, t target, shots string, run int) (result, error) {
	tmp, err := os.MkdirTemp("", "jc-bench-startup-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(tmp)
	xv, display, err := startXvfb(ctx, c.nice)
	if err != nil {
		return result{}, err
	}
	defer stopGroup(xv)
	x, err := dialX(display)
	if err != nil {
		return result{}, err
	}
	defer x.close()

	if c.seedDB != "" && t.name == "ours" {
		if err := copyFile(c.seedDB, filepath.Join(tmp, "jean-claude.db")); err != nil {
			return result{}, err
		}
	}
	args := []string{"dbus-run-session", "--", t.bin}
	if c.nice != 0 {
		args = append([]string{"nice", "-n", strconv.Itoa(c.nice)}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(profileEnv(tmp, display), t.env...)
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logf, err := os.Create(filepath.Join(tmp, "app.log"))
	if err != nil {
		return result{}, err
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{}, fmt.Errorf("start %s: %w", t.bin, err)
	}
	defer stopGroup(cmd)
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	r, err := watch(ctx, c, x, t.title, start, shots, exited)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(tmp, "app.log"))
		return r, fmt.Errorf("%w; app log:\n%s", err, tail(string(log), 20))
	}
	// Idle is +c.idle after launch, and at least 5 s after first content
	// (under heavy load content can come later than +10 s).
	at := start.Add(c.idle)
	if late := start.Add(r.content + 5*time.Second); late.After(at) {
		at = late
	}
	select {
	case <-time.After(time.Until(at)):
	case <-exited:
		return r, fmt.Errorf("the app exited before +%s", c.idle)
	case <-ctx.Done():
		return r, ctx.Err()
	}
	r.pss, err = treePSS(cmd.Process.Pid)
	if err == nil && c.smaps != "" {
		err = saveSmaps(cmd.Process.Pid, filepath.Join(c.smaps, fmt.Sprintf("%s-%d", t.name, run)))
	}
	return r, err
}

// watch polls the X server until the window has content. With shots set
// it saves the window's frames, at least c.shotsEvery apart, from the
// moment it is mapped until c.shotsFor after first content, each named by
// its time since launch (startup-NNNNNms.png).
func watch(ctx context.Context, c config, x *xconn, title string, start time.Time, shots string, exited <-chan struct{}) (result, error) {
	var r result
	var win uint32
	var nextShot time.Duration
	for {
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-exited:
			return r, fmt.Errorf("the app exited")
		default:
		}
		el := time.Since(start)
		if el > c.timeout {
			return r, fmt.Errorf("no content within %s (window after %s)", c.timeout, r.window)
		}
		if win == 0 {
			if win = x.findViewable(title); win != 0 {
				r.window = time.Since(start)
			}
		}
		if win == 0 {
			time.Sleep(15 * time.Millisecond)
			continue
		}
		f, err := x.grab(win)
		if err != nil {
			if os.Getenv("BENCH_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "grab at %s: %v\n", el, err)
			}
			time.Sleep(15 * time.Millisecond)
			continue
		}
		now := time.Since(start)
		if os.Getenv("BENCH_DEBUG") != "" {
			fmt.Fprintf(os.Stderr, "frame at %s: flat %v\n", now, f.flat())
		}
		shooting := shots != "" && (r.content == 0 || now <= r.content+c.shotsFor)
		if shooting && now >= nextShot {
			name := fmt.Sprintf("startup-%05dms.png", now.Milliseconds())
			if err := f.savePNG(filepath.Join(shots, name)); err != nil {
				return r, err
			}
			fmt.Printf("shot %s: window mapped at %d ms, flat %v, black %v\n", name, r.window.Milliseconds(), f.flat(), f.mostlyBlack())
			nextShot = now + c.shotsEvery
		}
		if f.mostlyBlack() {
			r.blackFrames++
		}
		if r.content == 0 && !f.flat() {
			r.content = el
		}
		if r.content != 0 && !shooting {
			return r, nil
		}
		time.Sleep(15 * time.Millisecond)
	}
}

// profileEnv is a fresh HOME and XDG dirs under tmp, and the display.
func profileEnv(tmp, display string) []string {
	home := filepath.Join(tmp, "home")
	for _, d := range []string{".config", ".local/share", ".cache"} {
		_ = os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + tmp,
		"DISPLAY=" + display,
		"JEAN_CLAUDE_DB=" + filepath.Join(tmp, "jean-claude.db"),
	}
}

// startXvfb starts Xvfb on a display it picks itself (-displayfd).
func startXvfb(ctx context.Context, nice int) (*exec.Cmd, string, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, "", err
	}
	defer pr.Close()
	cmd := exec.Command("nice", "-n", strconv.Itoa(nice), "Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, "", fmt.Errorf("start Xvfb (apt-get install xvfb): %w", err)
	}
	pw.Close()
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(pr).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if _, err := strconv.Atoi(s); err != nil {
			stopGroup(cmd)
			return nil, "", fmt.Errorf("Xvfb did not report a display (%q)", s)
		}
		return cmd, ":" + s, nil
	case <-time.After(15 * time.Second):
		stopGroup(cmd)
		return nil, "", fmt.Errorf("Xvfb did not start within 15 s")
	case <-ctx.Done():
		stopGroup(cmd)
		return nil, "", ctx.Err()
	}
}

// stopGroup ends cmd's process group: SIGTERM, then SIGKILL after 3 s.
func stopGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	pid := cmd.Process.Pid
	tree := append([]int{pid}, descendants(pid)...)
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	for _, p := range tree {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && anyAlive(tree) {
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range tree {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

func anyAlive(pids []int) bool {
	for _, p := range pids {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p)); err == nil && !strings.Contains(string(b), ") Z ") {
			return true
		}
	}
	return false
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("seed database: %w", err)
	}
	return os.WriteFile(to, b, 0o644)
}
