package framework

import (
	"os/exec"
	"syscall"
)

// dieWithTest has the kernel send sig to cmd's process when the test
// binary dies, so that a test killed from outside (a timeout, Ctrl-C, a CI
// runner ending the job) leaves no servers behind holding ports and CPU.
// A cmd that sets its own SysProcAttr keeps it.
func dieWithTest(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: sig}
	}
}
