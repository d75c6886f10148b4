// Package version holds build metadata injected with -ldflags at build time.
package version

import (
	"fmt"
	"runtime"

	"k8s.io/apimachinery/pkg/version"
)

var (
	// These are set by build-machinery-go's version-ldflags (see Makefile).
	versionFromGit = "v0.0.0-unknown"
	commitFromGit  = ""
	gitTreeState   = ""
	buildDate      = "1970-01-01T00:00:00Z"
)

// Get returns the version metadata of this binary.
func Get() version.Info {
	return version.Info{
		GitVersion:   versionFromGit,
		GitCommit:    commitFromGit,
		GitTreeState: gitTreeState,
		BuildDate:    buildDate,
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     fmt.Sprintf("%s/%s", runtime.GOOS, runtime.GOARCH),
	}
}
