package handler

import (
	"bytes"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// streamListYAML writes a list as YAML one item at a time, as the JSON
// list is written: converting the whole list at once held it as JSON, as
// decoded values and as YAML together. The envelope is converted without
// items, and YAML's keys come sorted, so its "items: []" line is where the
// items go; each item is its own YAML document indented as a sequence entry.
func streamListYAML(w http.ResponseWriter, info *resource.Info, res *storage.ListResult, meta metav1.ListMeta) error {
	env, err := listEnvelope(info, meta)
	if err != nil {
		return err
	}
	head, err := yaml.JSONToYAML(env)
	if err != nil {
		return err
	}
	const empty = "\nitems: []\n"
	at := bytes.Index(head, []byte(empty))
	if at < 0 {
		return fmt.Errorf("list envelope %q has no empty items", head)
	}
	w.Header().Set("Content-Type", mediaYAML)
	w.WriteHeader(http.StatusOK)
	if len(res.Items) == 0 {
		_, err := w.Write(head)
		return err
	}
	if _, err := w.Write(head[:at]); err != nil {
		return err
	}
	if _, err := w.Write([]byte("\nitems:\n")); err != nil {
		return err
	}
	var entry bytes.Buffer
	items := listItems(info, res)
	for i := range res.Items {
		y, err := yaml.JSONToYAML(items.json(i))
		if err != nil {
			return err
		}
		entry.Reset()
		sequenceEntry(&entry, y)
		if _, err := w.Write(entry.Bytes()); err != nil {
			return err
		}
	}
	_, err = w.Write(head[at+len(empty):])
	return err
}

// sequenceEntry writes a YAML document as an entry of a block sequence at
// the left margin: "- " before its first line and two spaces before every
// other non-empty one, which keeps each line's indentation relative to the
// others (block scalars included). Empty lines stay empty.
func sequenceEntry(b *bytes.Buffer, doc []byte) {
	for i, line := range bytes.SplitAfter(doc, []byte("\n")) {
		switch {
		case i == 0:
			b.WriteString("- ")
		case len(line) == 0:
			continue
		case line[0] != '\n':
			b.WriteString("  ")
		}
		b.Write(line)
	}
}
