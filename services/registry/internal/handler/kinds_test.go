package handler

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// kindSamples holds a valid object of every built-in kind served through
// kube's strategies, by "<group>/<resource>" (core as "core"), without
// apiVersion and kind. The samples live in kinds_<group>_test.go files.
var kindSamples = map[string]string{}

// kindSampleNames names the samples of the kinds whose objects cannot be
// named sample<i> (an IPAddress is named by its address), by the same key.
var kindSampleNames = map[string]string{}

// kindExtraCells are the cells kube's printer of a kind prints beyond the
// columns it declares: its IPAddress printer declares NAME and PARENTREF
// and prints the age too (printIPAddress), as kube-apiserver serves it.
var kindExtraCells = map[string]int{"networking.k8s.io/ipaddresses": 1}

func sampleKey(info *resource.Info) string {
	g := info.Group
	if g == "" {
		g = "core"
	}
	return g + "/" + info.Resource
}

// sample is kindSamples' object for info, as a complete JSON body named
// name.
func sample(t *testing.T, info *resource.Info, name string) (string, bool) {
	t.Helper()
	raw, ok := kindSamples[sampleKey(info)]
	if !ok {
		return "", false
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(raw), &obj); err != nil {
		t.Fatalf("sample of %s: %v", sampleKey(info), err)
	}
	obj["apiVersion"], obj["kind"] = info.APIVersion(), info.Kind
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	meta["name"] = name
	body, _ := json.Marshal(obj)
	return string(body), true
}

// Every built-in kind is created, read back as kube's Table, and refused
// with 422 and nothing stored when invalid, all through kube's own code.
func TestEveryBuiltinKindIsServedWithKubesTypeCode(t *testing.T) {
	e := newEnv(t)
	for i, info := range resource.Builtins() {
		if info.Strategy == nil {
			continue
		}
		// Kinds sharing a storage (core and events.k8s.io Events) share names.
		name := fmt.Sprintf("sample%d", i)
		if n, ok := kindSampleNames[sampleKey(info)]; ok {
			name = n
		}
		t.Run(sampleKey(info), func(t *testing.T) {
			ns := ""
			if info.Namespaced {
				ns = "ns"
			}
			body, ok := sample(t, info, name)
			if !ok {
				t.Fatalf("no sample of %s in kindSamples", sampleKey(info))
			}
			e.mustDo("POST", resourcePath(info, ns), body, http.StatusCreated)

			var table struct {
				ColumnDefinitions []struct{ Name string }
				Rows              []struct{ Cells []any }
			}
			data := e.mustDo("GET", resourcePath(info, ns)+"/"+name, "", http.StatusOK,
				"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
			raw, _ := json.Marshal(data)
			if err := json.Unmarshal(raw, &table); err != nil || len(table.Rows) != 1 {
				t.Fatalf("table: %v %s", err, raw)
			}
			named := false
			for j, c := range table.ColumnDefinitions {
				named = named || (c.Name == "Name" && j < len(table.Rows[0].Cells) && table.Rows[0].Cells[j] == name)
			}
			if !named || len(table.Rows[0].Cells) != len(table.ColumnDefinitions)+kindExtraCells[sampleKey(info)] {
				t.Errorf("table is not kube's printer's: %s", raw)
			}

			before := e.etcdState()
			// No kind takes a name kube could not put in a path.
			bad, _ := sample(t, info, "not/a/name")
			resp, out := e.do("POST", resourcePath(info, ns), bad)
			if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(out), "metadata.name") {
				t.Errorf("invalid name: %d %s", resp.StatusCode, out)
			}
			e.untouched(before, fmt.Sprintf("an invalid %s", info.Kind))
		})
	}
}
