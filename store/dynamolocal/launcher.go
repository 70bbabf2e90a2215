package dynamolocal

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// launcherDirPrefix names the temp dir each Start writes Launcher.java
// into, followed by the starting process's id: dynamolocal-<pid>-<random>.
const launcherDirPrefix = "dynamolocal-"

// staleUnnamedAge is how old a launcher dir without a process id (as
// earlier versions named them) must be to be removed: an engine reads its
// launcher only in the seconds it takes to start.
const staleUnnamedAge = time.Hour

// removeStaleLaunchers removes the launcher dirs under tmp that a process
// killed while its engine started (kill -9 runs no cleanup) left behind:
// those whose process is gone, and unnamed ones older than staleUnnamedAge.
// A dir it cannot remove (another user's) stays; nothing here fails Start.
func removeStaleLaunchers(tmp string, now time.Time) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, launcherDirPrefix+"*"))
	for _, dir := range dirs {
		if st, err := os.Lstat(dir); err == nil && st.IsDir() && launcherIsStale(filepath.Base(dir), st.ModTime(), now) {
			_ = os.RemoveAll(dir)
		}
	}
}

func launcherIsStale(name string, modified, now time.Time) bool {
	rest := strings.TrimPrefix(name, launcherDirPrefix)
	pidText, _, named := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !named || err != nil || pid <= 0 {
		return now.Sub(modified) > staleUnnamedAge
	}
	if pid == os.Getpid() {
		return false
	}
	// Signal 0 asks only whether the process exists; EPERM means it does
	// (another user's).
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
