package handler

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// A YAML list, written an item at a time, holds what the JSON list holds,
// whatever the items' strings make YAML do: fold long lines, write block
// scalars with empty and trailing lines, quote.
func TestStreamedYAMLList(t *testing.T) {
	e := newEnv(t)
	long := strings.Repeat("words and more words ", 20)
	for i, data := range []map[string]string{
		{"long": long, "longer": strings.Repeat("x", 300) + " " + long},
		{"block": "line one\n\n  indented\n\nlast\n\n\n", "tabs": "a\tb\n\tc"},
		{"quoted": `"yes" no: - [x] {y} # z`, "number": "012", "bool": "true", "empty": ""},
		{"unicode": "ünïcødé ✓\nzweite Zeile", "spaces": "  lead and trail  "},
	} {
		body, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": fmt.Sprint("y", i),
			"annotations": map[string]string{"a": long}}, "data": data})
		e.mustDo("POST", cmPath, string(body), http.StatusCreated)
	}
	for _, path := range []string{cmPath, "/api/v1/namespaces/none/configmaps"} {
		_, fromJSON := e.do("GET", path, "")
		resp, fromYAML := e.do("GET", path, "", "Accept", "application/yaml")
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/yaml" {
			t.Fatalf("%s: %d %q: %s", path, resp.StatusCode, ct, fromYAML)
		}
		converted, err := yaml.YAMLToJSON(fromYAML)
		if err != nil {
			t.Fatalf("%s: YAML does not parse: %v\n%s", path, err, fromYAML)
		}
		var got, want any
		if err := json.Unmarshal(converted, &got); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(fromJSON, &want); err != nil {
			t.Fatal(err)
		}
		// Lines fold at other columns once indented, but with nothing to
		// fold, streaming writes the bytes converting the whole list did.
		if whole, _ := yaml.JSONToYAML(fromJSON); path != cmPath && string(whole) != string(fromYAML) {
			t.Errorf("%s: YAML list\n%s\nwant\n%s", path, fromYAML, whole)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: YAML list\n%s\nholds\n%s\nwant\n%s", path, fromYAML, converted, fromJSON)
		}
	}
}
