package printers

import "testing"

func TestResourceQuotaCells(t *testing.T) {
	pinClock(t)
	quota := decode(t, `{"metadata":{"name":"compute"},
		"spec":{"hard":{"pods":"10","requests.cpu":"2","limits.cpu":"4","limits.memory":"8Gi"}},
		"status":{
		  "hard":{"pods":"10","requests.cpu":"2","requests.memory":"2048Mi","limits.cpu":"4","limits.memory":"8Gi"},
		  "used":{"pods":"3","requests.cpu":"1500m","limits.cpu":"2000m"}}}`)
	assertCells(t, ResourceQuota, quota, map[string]any{
		"Name":    "compute",
		"Request": "pods: 3/10, requests.cpu: 1500m/2, requests.memory: 0/2Gi",
		"Limit":   "limits.cpu: 2/4, limits.memory: 0/8Gi",
	})
	// Before the quota controller fills status, kube shows nothing.
	assertCells(t, ResourceQuota, decode(t, `{"metadata":{"name":"new"},"spec":{"hard":{"pods":"1"}}}`),
		map[string]any{"Request": "", "Limit": ""})
}
