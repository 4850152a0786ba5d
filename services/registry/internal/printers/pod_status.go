package printers

import (
	"fmt"
	"time"
)

// podSummary is what kubectl condenses a pod's status into: the READY,
// STATUS and RESTARTS cells.
type podSummary struct {
	ready, total int
	reason       string
	restarts     restarts
}

// restarts sums container restarts and remembers the latest one.
type restarts struct {
	count int64
	last  time.Time
}

// add counts one container status's restarts.
func (r *restarts) add(status map[string]any) {
	r.count += integer(status, "restartCount")
	if t := timestamp(status, "lastState", "terminated", "finishedAt"); t.After(r.last) {
		r.last = t
	}
}

// String is the RESTARTS cell: "3", or "3 (5m ago)" once a restart time is
// known.
func (r restarts) String() string {
	if r.count != 0 && !r.last.IsZero() {
		return fmt.Sprintf("%d (%s ago)", r.count, since(r.last))
	}
	return fmt.Sprint(r.count)
}

// summarizePod computes the pod's READY, STATUS and RESTARTS the way kube's
// printer does: the phase (or status.reason) first, overridden by the first
// init container still in the way, else by the first app container that is
// waiting or terminated, and finally by deletion.
func summarizePod(pod map[string]any) podSummary {
	s := podSummary{total: len(list(pod, "spec", "containers"))}
	phase := str(pod, "status", "phase")
	s.reason = phase
	if r := str(pod, "status", "reason"); r != "" {
		s.reason = r
	}
	for _, c := range objects(pod, "status", "conditions") {
		if str(c, "type") == "PodScheduled" && str(c, "reason") == "SchedulingGated" {
			s.reason = "SchedulingGated"
		}
	}

	sidecars := sidecarNames(pod)
	s.total += len(sidecars)
	initializing, all, sidecar := s.scanInitContainers(pod, sidecars)
	s.restarts = all
	if !initializing || conditionTrue(pod, "Initialized") {
		// Once init is done, finished init containers' restarts no
		// longer count; sidecars keep running and still do.
		s.restarts = sidecar
		s.scanContainers(pod)
	}

	if str(pod, "metadata", "deletionTimestamp") != "" {
		if str(pod, "status", "reason") == "NodeLost" {
			s.reason = "Unknown"
		} else if phase != "Succeeded" && phase != "Failed" {
			s.reason = "Terminating"
		}
	}
	return s
}

// sidecarNames are the init containers with restartPolicy Always: they run
// beside the app containers and count in READY.
func sidecarNames(pod map[string]any) map[string]bool {
	names := map[string]bool{}
	for _, c := range objects(pod, "spec", "initContainers") {
		if str(c, "restartPolicy") == "Always" {
			names[str(c, "name")] = true
		}
	}
	return names
}

// scanInitContainers walks the init container statuses in order, stopping
// at the first one still holding the pod back, whose state becomes the
// reason ("Init:0/2", "Init:CrashLoopBackOff", "Init:ExitCode:1"). It
// reports whether one did, with the restarts of all init containers seen
// and of the sidecars among them.
func (s *podSummary) scanInitContainers(pod map[string]any, sidecars map[string]bool) (initializing bool, all, sidecar restarts) {
	specCount := len(list(pod, "spec", "initContainers"))
	for i, c := range objects(pod, "status", "initContainerStatuses") {
		all.add(c)
		isSidecar := sidecars[str(c, "name")]
		if isSidecar {
			sidecar.add(c)
		}
		terminated := object(c, "state", "terminated")
		waiting := str(c, "state", "waiting", "reason")
		switch {
		case terminated != nil && integer(terminated, "exitCode") == 0:
			continue
		case isSidecar && boolean(c, "started"):
			if boolean(c, "ready") {
				s.ready++
			}
			continue
		case terminated != nil:
			s.reason = "Init:" + terminationReason(terminated)
		case waiting != "" && waiting != "PodInitializing":
			s.reason = "Init:" + waiting
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, specCount)
		}
		return true, all, sidecar
	}
	return false, all, sidecar
}

// scanContainers walks the app container statuses last to first, so the
// first container that is waiting or terminated names the reason, and
// counts the ready, running ones.
func (s *podSummary) scanContainers(pod map[string]any) {
	statuses := objects(pod, "status", "containerStatuses")
	hasRunning := false
	for i := len(statuses) - 1; i >= 0; i-- {
		c := statuses[i]
		s.restarts.add(c)
		terminated := object(c, "state", "terminated")
		if w := str(c, "state", "waiting", "reason"); w != "" {
			s.reason = w
		} else if terminated != nil {
			s.reason = terminationReason(terminated)
		} else if boolean(c, "ready") && object(c, "state", "running") != nil {
			hasRunning = true
			s.ready++
		}
	}
	// A finished container beside one still running does not make the
	// pod Completed.
	if s.reason == "Completed" && hasRunning {
		if conditionTrue(pod, "Ready") {
			s.reason = "Running"
		} else {
			s.reason = "NotReady"
		}
	}
}

// terminationReason names a terminated container state: its reason, or
// failing that the signal or exit code that ended it.
func terminationReason(terminated map[string]any) string {
	if r := str(terminated, "reason"); r != "" {
		return r
	}
	if sig := integer(terminated, "signal"); sig != 0 {
		return fmt.Sprintf("Signal:%d", sig)
	}
	return fmt.Sprintf("ExitCode:%d", integer(terminated, "exitCode"))
}
