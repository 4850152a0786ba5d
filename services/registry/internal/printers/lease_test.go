package printers

import (
	"testing"
	"time"
)

func TestLeaseCells(t *testing.T) {
	pinClock(t)
	assertCells(t, Lease, decode(t, `{"metadata":{"name":"kube-scheduler","creationTimestamp":"`+ago(5*time.Hour+30*time.Minute)+`"},
		"spec":{"holderIdentity":"node-a_1234","leaseDurationSeconds":15}}`),
		map[string]any{"Name": "kube-scheduler", "Holder": "node-a_1234", "Age": "5h30m"})
	assertCells(t, Lease, decode(t, `{"metadata":{"name":"free"},"spec":{}}`), map[string]any{"Holder": ""})
}
