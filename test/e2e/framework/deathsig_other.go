//go:build !linux

package framework

import (
	"os/exec"
	"syscall"
)

// dieWithTest does nothing where the kernel offers no parent-death
// signal; the test's cleanup still stops what it started.
func dieWithTest(*exec.Cmd, syscall.Signal) {}
