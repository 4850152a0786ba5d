package handler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// A list is written to the client one item at a time, never assembled:
// the items' encodings are shared with the cache, so a list of a 30 MB
// collection costs a request little beyond a slice of pointers however
// many clients list at once, where building its encoding cost each of them
// 30 MB more. Writes block on a slow client (net/http buffers a few KB, and
// HTTP/2 flow control the rest), so nothing queues up either.

// streamListJSON writes a list as JSON from its items' stored bytes. Its
// length is known before the first byte, so the response carries
// Content-Length as an assembled one did.
func streamListJSON(w http.ResponseWriter, info *resource.Info, res *storage.ListResult, meta metav1.ListMeta) error {
	head, err := listEnvelope(info, meta)
	if err != nil {
		return err
	}
	items := listItems(info, res)
	size := len(head) + max(len(res.Items)-1, 0)
	for i := range res.Items {
		size += items.size(i)
	}
	return streamJSONArray(w, head, len(res.Items), items.write, size)
}

// listItems are the items of a list as a list sends them: a built-in
// kind's without apiVersion and kind, as kube encodes them from Go values
// whose type is the list's; a custom resource's whole.
func listItems(info *resource.Info, res *storage.ListResult) itemWriter {
	return itemWriter{items: res.Items, noType: resource.Scheme.Recognizes(info.GroupVersionKind())}
}

// itemWriter writes the items of one list, each from its stored bytes.
type itemWriter struct {
	items  []*storage.Object
	noType bool
}

func (iw itemWriter) size(i int) int {
	if iw.noType {
		return 1 + len(iw.items[i].FieldsWithoutType())
	}
	return len(iw.items[i].JSON)
}

func (iw itemWriter) write(w io.Writer, i int) error {
	if !iw.noType {
		_, err := w.Write(iw.items[i].JSON)
		return err
	}
	if _, err := w.Write([]byte{'{'}); err != nil {
		return err
	}
	_, err := w.Write(iw.items[i].FieldsWithoutType())
	return err
}

// json is item i whole, for a caller that converts it.
func (iw itemWriter) json(i int) []byte {
	if !iw.noType {
		return iw.items[i].JSON
	}
	return append([]byte{'{'}, iw.items[i].FieldsWithoutType()...)
}

// listEnvelope is a list with no items, in JSON.
func listEnvelope(info *resource.Info, meta metav1.ListMeta) ([]byte, error) {
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	var head bytes.Buffer
	head.WriteString(`{"kind":"`)
	head.WriteString(info.ListKind())
	head.WriteString(`","apiVersion":"`)
	head.WriteString(info.APIVersion())
	head.WriteString(`","metadata":`)
	head.Write(mb)
	head.WriteString(`,"items":[]}`)
	return head.Bytes(), nil
}

// streamTable writes a list as a Table, one row encoded at a time.
func streamTable(w http.ResponseWriter, info *resource.Info, res *storage.ListResult, rv string, opts tableOptions) error {
	// The Table without rows is the envelope; its "rows":[] comes last.
	head, err := json.Marshal(table(info, nil, rv, res.Continue, opts))
	if err != nil {
		return err
	}
	tab := info.Table()
	return streamJSONArray(w, head, len(res.Items), marshalled(func(i int) any { return tableRow(tab, res.Items[i], opts) }), -1)
}

// streamPartialList writes a list's metadata-only view as JSON, one item
// encoded at a time.
func streamPartialList(w http.ResponseWriter, res *storage.ListResult, meta metav1.ListMeta) error {
	head, err := json.Marshal(&metav1.PartialObjectMetadataList{
		TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
		ListMeta: meta, Items: []metav1.PartialObjectMetadata{},
	})
	if err != nil {
		return err
	}
	return streamJSONArray(w, head, len(res.Items), marshalled(func(i int) any { return partialMetadata(res.Items[i]) }), -1)
}

// marshalled writes item i as encoding/json encodes value(i).
func marshalled(value func(i int) any) func(io.Writer, int) error {
	return func(w io.Writer, i int) error {
		data, err := json.Marshal(value(i))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
}

// streamJSONArray writes envelope, a JSON object whose last field is an
// empty array, with n items in that array, each written by item only as
// its turn comes. size is the whole length when the caller knows it, else
// -1 (the response is then chunked).
func streamJSONArray(w http.ResponseWriter, envelope []byte, n int, item func(io.Writer, int) error, size int) error {
	if !bytes.HasSuffix(envelope, []byte("[]}")) {
		return fmt.Errorf("list envelope %.40q… does not end with an empty array", envelope)
	}
	w.Header().Set("Content-Type", mediaJSON)
	if size >= 0 {
		w.Header().Set("Content-Length", strconv.Itoa(size))
	}
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(envelope[:len(envelope)-2]); err != nil {
		return err
	}
	for i := range n {
		if i > 0 {
			if _, err := w.Write([]byte{','}); err != nil {
				return err
			}
		}
		if err := item(w, i); err != nil {
			return err
		}
	}
	_, err := w.Write([]byte("]}"))
	return err
}
