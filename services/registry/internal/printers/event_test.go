package printers

import (
	"testing"
	"time"
)

func TestEventCells(t *testing.T) {
	assertCellsCases(t, Event, []cellsCase{{
		name: "core/v1 event repeated",
		obj: `{"metadata":{"name":"web-1.17a2b3c4d5e6f708","namespace":"default"},
			"involvedObject":{"kind":"Pod","name":"web-1","namespace":"default","fieldPath":"spec.containers{proxy}"},
			"reason":"BackOff","message":"Back-off restarting failed container proxy\n","type":"Warning",
			"source":{"component":"kubelet","host":"node-a"},
			"firstTimestamp":"` + ago(20*time.Minute) + `","lastTimestamp":"` + ago(30*time.Second) + `","count":7}`,
		want: map[string]any{"Last Seen": "30s", "Type": "Warning", "Reason": "BackOff", "Object": "pod/web-1",
			"Subobject": "spec.containers{proxy}", "Source": "kubelet, node-a",
			"Message": "Back-off restarting failed container proxy", "First Seen": "20m", "Count": int64(7),
			"Name": "web-1.17a2b3c4d5e6f708"},
	}, {
		name: "events.k8s.io event seen once",
		obj: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Node"},"type":"Normal","reason":"Starting",
			"eventTime":"` + testNow.Add(-4*time.Minute).Format("2006-01-02T15:04:05.000000Z07:00") + `",
			"reportingComponent":"kube-proxy","reportingInstance":"kube-proxy-node-a"}`,
		want: map[string]any{"Last Seen": "4m", "First Seen": "4m", "Count": int64(1), "Object": "node",
			"Source": "kube-proxy, kube-proxy-node-a"},
	}, {
		name: "event series",
		obj: `{"metadata":{"name":"s"},"involvedObject":{"kind":"Pod","name":"p"},
			"eventTime":"` + ago(time.Hour) + `","series":{"count":12,"lastObservedTime":"` + ago(2*time.Minute) + `"},
			"source":{"component":"scheduler"}}`,
		want: map[string]any{"Last Seen": "2m", "First Seen": "60m", "Count": int64(12), "Source": "scheduler"},
	}, {
		name: "no times",
		obj:  `{"metadata":{"name":"n"}}`,
		want: map[string]any{"Last Seen": "<unknown>", "First Seen": "<unknown>", "Object": "", "Source": ""},
	}})
}

func TestEventNameColumnIsWideAndLast(t *testing.T) {
	last := Event[len(Event)-1]
	if last.Name != "Name" || last.Format != "name" || last.Priority != 1 {
		t.Fatalf("last event column = %+v, want a wide Name column", last.TableColumnDefinition)
	}
}
