package printers

import (
	"testing"
	"time"
)

func TestPodCells(t *testing.T) {
	assertCellsCases(t, Pod, []cellsCase{{
		name: "one of two containers crash looping",
		obj: `{"metadata":{"name":"web-1","creationTimestamp":"` + ago(3*time.Hour) + `"},
			"spec":{"containers":[{"name":"app"},{"name":"proxy"}],"nodeName":"node-a"},
			"status":{"phase":"Running","podIP":"10.0.0.7","podIPs":[{"ip":"10.0.0.7"},{"ip":"fd00::7"}],
			  "containerStatuses":[
				{"name":"app","ready":true,"restartCount":0,"state":{"running":{"startedAt":"` + ago(time.Hour) + `"}}},
				{"name":"proxy","ready":false,"restartCount":3,
				 "state":{"waiting":{"reason":"CrashLoopBackOff"}},
				 "lastState":{"terminated":{"exitCode":1,"reason":"Error","finishedAt":"` + ago(5*time.Minute) + `"}}}]}}`,
		want: map[string]any{"Name": "web-1", "Ready": "1/2", "Status": "CrashLoopBackOff", "Restarts": "3 (5m ago)",
			"Age": "3h", "IP": "10.0.0.7", "Node": "node-a", "Nominated Node": "<none>", "Readiness Gates": "<none>"},
	}, {
		name: "running and ready",
		obj: `{"metadata":{"name":"db"},"spec":{"containers":[{"name":"db"}]},
			"status":{"phase":"Running","containerStatuses":[{"name":"db","ready":true,"state":{"running":{}}}]}}`,
		want: map[string]any{"Ready": "1/1", "Status": "Running", "Restarts": "0", "Age": "<unknown>"},
	}, {
		name: "terminating",
		obj: `{"metadata":{"name":"old","deletionTimestamp":"` + ago(time.Minute) + `"},
			"spec":{"containers":[{"name":"a"}]},
			"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`,
		want: map[string]any{"Ready": "1/1", "Status": "Terminating"},
	}, {
		name: "deleted on a lost node",
		obj: `{"metadata":{"name":"lost","deletionTimestamp":"` + ago(time.Minute) + `"},
			"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","reason":"NodeLost"}}`,
		want: map[string]any{"Status": "Unknown"},
	}, {
		name: "deleting a finished pod keeps its outcome",
		obj: `{"metadata":{"name":"job","deletionTimestamp":"` + ago(time.Minute) + `"},
			"spec":{"containers":[{"name":"a"}]},
			"status":{"phase":"Succeeded","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}`,
		want: map[string]any{"Ready": "0/1", "Status": "Completed"},
	}, {
		name: "pending without statuses",
		obj:  `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"},{"name":"b"}]},"status":{"phase":"Pending"}}`,
		want: map[string]any{"Ready": "0/2", "Status": "Pending", "Restarts": "0", "IP": "<none>", "Node": "<none>"},
	}, {
		name: "scheduling gated",
		obj: `{"metadata":{"name":"g"},"spec":{"containers":[{"name":"a"}]},
			"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]}}`,
		want: map[string]any{"Status": "SchedulingGated"},
	}, {
		name: "evicted",
		obj:  `{"metadata":{"name":"e"},"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Failed","reason":"Evicted"}}`,
		want: map[string]any{"Status": "Evicted"},
	}, {
		name: "waiting on the first of two init containers",
		obj: `{"metadata":{"name":"i"},"spec":{"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"a"}]},
			"status":{"phase":"Pending","initContainerStatuses":[
				{"name":"i1","state":{"running":{}}},
				{"name":"i2","state":{"waiting":{"reason":"PodInitializing"}}}],
			  "containerStatuses":[{"name":"a","state":{"waiting":{"reason":"PodInitializing"}}}]}}`,
		want: map[string]any{"Ready": "0/1", "Status": "Init:0/2"},
	}, {
		name: "second init container crash looping",
		obj: `{"metadata":{"name":"i"},"spec":{"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"a"}]},
			"status":{"phase":"Pending","initContainerStatuses":[
				{"name":"i1","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
				{"name":"i2","restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}},
				 "lastState":{"terminated":{"exitCode":2,"finishedAt":"` + ago(90*time.Second) + `"}}}],
			  "containerStatuses":[{"name":"a","state":{"waiting":{"reason":"PodInitializing"}}}]}}`,
		want: map[string]any{"Status": "Init:CrashLoopBackOff", "Restarts": "4 (90s ago)"},
	}, {
		name: "init container failed without a reason",
		obj: `{"metadata":{"name":"i"},"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},
			"status":{"phase":"Pending","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":3}}}]}}`,
		want: map[string]any{"Status": "Init:ExitCode:3"},
	}, {
		name: "init container killed by a signal",
		obj: `{"metadata":{"name":"i"},"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},
			"status":{"phase":"Pending","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":137,"signal":9}}}]}}`,
		want: map[string]any{"Status": "Init:Signal:9"},
	}, {
		name: "init container with a reason",
		obj: `{"metadata":{"name":"i"},"spec":{"initContainers":[{"name":"i1"}],"containers":[{"name":"a"}]},
			"status":{"phase":"Pending","initContainerStatuses":[{"name":"i1","state":{"terminated":{"exitCode":1,"reason":"Error"}}}]}}`,
		want: map[string]any{"Status": "Init:Error"},
	}, {
		name: "sidecar counts toward ready and restarts",
		obj: `{"metadata":{"name":"s"},
			"spec":{"initContainers":[{"name":"setup"},{"name":"mesh","restartPolicy":"Always"}],"containers":[{"name":"a"}]},
			"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True"}],
			  "initContainerStatuses":[
				{"name":"setup","restartCount":1,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
				{"name":"mesh","started":true,"ready":true,"restartCount":2,"state":{"running":{}},
				 "lastState":{"terminated":{"exitCode":1,"finishedAt":"` + ago(10*time.Minute) + `"}}}],
			  "containerStatuses":[{"name":"a","ready":true,"state":{"running":{}}}]}}`,
		want: map[string]any{"Ready": "2/2", "Status": "Running", "Restarts": "2 (10m ago)"},
	}, {
		name: "app container exited without a reason",
		obj: `{"metadata":{"name":"x"},"spec":{"containers":[{"name":"a"}]},
			"status":{"phase":"Running","containerStatuses":[{"name":"a","restartCount":1,"state":{"terminated":{"exitCode":137}}}]}}`,
		want: map[string]any{"Status": "ExitCode:137", "Restarts": "1"},
	}, {
		name: "app container killed by a signal",
		obj: `{"metadata":{"name":"x"},"spec":{"containers":[{"name":"a"}]},
			"status":{"phase":"Running","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":0,"signal":15}}}]}}`,
		want: map[string]any{"Status": "Signal:15"},
	}, {
		name: "the first failing container names the status",
		obj: `{"metadata":{"name":"x"},"spec":{"containers":[{"name":"a"},{"name":"b"}]},
			"status":{"phase":"Running","containerStatuses":[
				{"name":"a","state":{"waiting":{"reason":"ImagePullBackOff"}}},
				{"name":"b","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}}`,
		want: map[string]any{"Ready": "0/2", "Status": "ImagePullBackOff"},
	}, {
		name: "completed beside a running container, pod not ready",
		obj: `{"metadata":{"name":"x"},"spec":{"containers":[{"name":"a"},{"name":"b"}]},
			"status":{"phase":"Running","containerStatuses":[
				{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
				{"name":"b","ready":true,"state":{"running":{}}}]}}`,
		want: map[string]any{"Ready": "1/2", "Status": "NotReady"},
	}, {
		name: "completed beside a running container, pod ready",
		obj: `{"metadata":{"name":"x"},"spec":{"containers":[{"name":"a"},{"name":"b"}]},
			"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[
				{"name":"a","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},
				{"name":"b","ready":true,"state":{"running":{}}}]}}`,
		want: map[string]any{"Status": "Running"},
	}, {
		name: "wide columns",
		obj: `{"metadata":{"name":"w"},
			"spec":{"containers":[{"name":"a"}],"readinessGates":[{"conditionType":"lb/ready"},{"conditionType":"mesh/ready"}]},
			"status":{"phase":"Pending","podIP":"10.1.1.1","nominatedNodeName":"node-b",
			  "conditions":[{"type":"lb/ready","status":"True"},{"type":"mesh/ready","status":"False"}]}}`,
		want: map[string]any{"IP": "10.1.1.1", "Nominated Node": "node-b", "Readiness Gates": "1/2"},
	}})
}

func TestPodColumns(t *testing.T) {
	want := []struct {
		name     string
		priority int32
	}{{"Name", 0}, {"Ready", 0}, {"Status", 0}, {"Restarts", 0}, {"Age", 0},
		{"IP", 1}, {"Node", 1}, {"Nominated Node", 1}, {"Readiness Gates", 1}}
	defs := Definitions(Pod)
	if len(defs) != len(want) {
		t.Fatalf("got %d columns, want %d", len(defs), len(want))
	}
	for i, w := range want {
		if defs[i].Name != w.name || defs[i].Priority != w.priority || defs[i].Description == "" {
			t.Errorf("column %d = %+v, want %s priority %d with a description", i, defs[i], w.name, w.priority)
		}
	}
}
