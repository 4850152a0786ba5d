package handler

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	size := len(head) + max(len(res.Items)-1, 0)
	for _, item := range res.Items {
		size += len(item.JSON)
	}
	return streamJSONArray(w, head, len(res.Items), func(i int) ([]byte, error) { return res.Items[i].JSON, nil }, size)
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
	return streamJSONArray(w, head, len(res.Items), func(i int) ([]byte, error) {
		return json.Marshal(tableRow(tab, res.Items[i], opts))
	}, -1)
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
	return streamJSONArray(w, head, len(res.Items), func(i int) ([]byte, error) {
		return json.Marshal(partialMetadata(res.Items[i]))
	}, -1)
}

// streamJSONArray writes envelope, a JSON object whose last field is an
// empty array, with n items in that array, each encoded only as it is
// written. size is the whole length when the caller knows it, else -1 (the
// response is then chunked).
func streamJSONArray(w http.ResponseWriter, envelope []byte, n int, item func(int) ([]byte, error), size int) error {
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
		data, err := item(i)
		if err != nil {
			return err
		}
		if i > 0 {
			if _, err := w.Write([]byte{','}); err != nil {
				return err
			}
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	_, err := w.Write([]byte("]}"))
	return err
}
