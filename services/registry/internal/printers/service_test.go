package printers

import (
	"testing"
	"time"
)

func TestServiceCells(t *testing.T) {
	assertCellsCases(t, Service, []cellsCase{{
		name: "cluster IP",
		obj: `{"metadata":{"name":"kubernetes","creationTimestamp":"` + ago(49*time.Hour) + `"},
			"spec":{"type":"ClusterIP","clusterIP":"10.96.0.1","clusterIPs":["10.96.0.1"],
			  "ports":[{"name":"https","port":443,"protocol":"TCP","targetPort":6443}]}}`,
		want: map[string]any{"Name": "kubernetes", "Type": "ClusterIP", "Cluster-IP": "10.96.0.1",
			"External-IP": "<none>", "Port(s)": "443/TCP", "Age": "2d1h", "Selector": "<none>"},
	}, {
		name: "node port with a selector",
		obj: `{"metadata":{"name":"web"},"spec":{"type":"NodePort","clusterIP":"10.96.3.4","selector":{"app":"web"},
			  "ports":[{"port":80,"nodePort":30080,"protocol":"TCP"},{"port":53,"protocol":"UDP"}]}}`,
		want: map[string]any{"Cluster-IP": "10.96.3.4", "External-IP": "<none>", "Port(s)": "80:30080/TCP,53/UDP", "Selector": "app=web"},
	}, {
		name: "external IPs",
		obj:  `{"metadata":{"name":"e"},"spec":{"type":"ClusterIP","clusterIPs":["10.0.0.1"],"externalIPs":["1.2.3.4","5.6.7.8"]}}`,
		want: map[string]any{"External-IP": "1.2.3.4,5.6.7.8", "Port(s)": "<none>"},
	}, {
		name: "load balancer pending",
		obj:  `{"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","ports":[{"port":80,"nodePort":31000}]}}`,
		want: map[string]any{"External-IP": "<pending>", "Port(s)": "80:31000/TCP", "Cluster-IP": "<none>"},
	}, {
		name: "load balancer with ingress and external IPs",
		obj: `{"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","externalIPs":["9.9.9.9"]},
			"status":{"loadBalancer":{"ingress":[{"hostname":"lb.example.com"},{"ip":"34.1.2.3"},{"ip":"34.1.2.3"}]}}}`,
		want: map[string]any{"External-IP": "34.1.2.3,lb.example.com,9.9.9.9"},
	}, {
		name: "external name",
		obj:  `{"metadata":{"name":"db"},"spec":{"type":"ExternalName","externalName":"db.example.com"}}`,
		want: map[string]any{"External-IP": "db.example.com", "Cluster-IP": "<none>"},
	}, {
		name: "headless",
		obj:  `{"metadata":{"name":"h"},"spec":{"type":"ClusterIP","clusterIP":"None","clusterIPs":["None"]}}`,
		want: map[string]any{"Cluster-IP": "None"},
	}, {
		name: "no type",
		obj:  `{"metadata":{"name":"n"}}`,
		want: map[string]any{"Type": "", "External-IP": "<unknown>"},
	}})
}
