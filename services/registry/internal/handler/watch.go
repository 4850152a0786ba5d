package handler

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// BookmarkInterval is how often an idle watch that allows bookmarks gets
// one, so that its client can resume from a recent resourceVersion.
var BookmarkInterval = time.Minute

// initialEventsEnd marks the bookmark that ends a watch's initial events.
const initialEventsEnd = "k8s.io/initial-events-end"

func (q *request) watch() error {
	out, err := q.output()
	if err != nil {
		return err
	}
	if out.media == mediaYAML {
		out.media = mediaJSON // kube streams JSON to YAML clients too
	}
	query, err := q.listQuery()
	if err != nil {
		return err
	}
	lopts, err := storeListOptions(query)
	if err != nil {
		return err
	}
	if q.info.Name != "" {
		// The deprecated /watch/…/<name> was authorized for that one
		// object: watch only it, as kube does.
		lopts.Selector.Field = fields.AndSelectors(lopts.Selector.Field, fields.OneTermEqualSelector("metadata.name", q.info.Name))
	}
	opts := storage.WatchOptions{ReadOptions: lopts.ReadOptions, Selector: lopts.Selector, SendInitialEvents: query.SendInitialEvents}
	bookmarks := query.AllowWatchBookmarks
	ctx, cancel := context.WithTimeout(q.r.Context(), watchTimeout(query.TimeoutSeconds))
	defer cancel()
	w, err := q.store.Watch(ctx, q.info.Namespace, opts)
	if err != nil {
		return err
	}
	defer w.Stop()

	enc := &watchEncoder{w: q.w, res: q.res, out: out, table: q.tableOptions(out)}
	enc.start()
	q.written = true
	for _, ev := range w.Initial {
		if err := enc.event(ev); err != nil {
			return err
		}
	}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents && bookmarks {
		if err := enc.bookmark(w.Rev, true); err != nil {
			return err
		}
	}
	enc.flush()
	return q.stream(ctx, w, enc, bookmarks)
}

// stream sends events until the watch, the request or its timeout ends.
func (q *request) stream(ctx context.Context, w *storage.Watch, enc *watchEncoder, bookmarks bool) error {
	tick := time.NewTicker(BookmarkInterval)
	defer tick.Stop()
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if err := enc.event(ev); err != nil {
				return err
			}
			// As kube's watch handler does: a burst of events goes out
			// in one flush, not one per event.
			if len(w.Events) == 0 {
				enc.flush()
			}
		case <-tick.C:
			// Every event up to the revision read first has been queued
			// before it; with the queue empty, all of them were sent.
			if rev, ok := q.store.WatchRevision(w); bookmarks && ok && len(w.Events) == 0 {
				if err := enc.bookmark(rev, false); err != nil {
					return err
				}
				enc.flush()
			}
		case <-ctx.Done():
			return nil
		case <-q.h.closing:
			return nil
		}
	}
}

// watchEncoder writes watch events in the negotiated format.
type watchEncoder struct {
	w     http.ResponseWriter
	res   *resource.Info
	out   output
	table tableOptions
	buf   bytes.Buffer
}

func (e *watchEncoder) start() {
	ct := mediaJSON
	if e.out.media == mediaProtobuf {
		ct = mediaProtobuf + ";stream=watch"
	}
	e.w.Header().Set("Content-Type", ct)
	e.w.Header().Set("Transfer-Encoding", "chunked")
	e.w.WriteHeader(http.StatusOK)
	e.flush()
}

func (e *watchEncoder) flush() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// event sends one event.
func (e *watchEncoder) event(ev storage.Event) error {
	if ev.Type == watch.Error {
		status, _ := json.Marshal(apierror.Status(ev.Err))
		return e.write(watch.Error, status, nil)
	}
	raw := ev.Object.JSON
	if e.out.as == "Table" {
		raw = e.tableOf(ev.Object)
	} else if e.out.as != "" {
		raw, _ = json.Marshal(partialMetadata(ev.Object))
	}
	return e.write(ev.Type, raw, ev.Object)
}

// tableOf is one event's object as a Table. As kube sends them, only the
// first Table of a watch carries the column definitions.
func (e *watchEncoder) tableOf(obj *storage.Object) []byte {
	raw, _ := json.Marshal(table(e.res, []*storage.Object{obj}, obj.ResourceVersion(), "", e.table))
	e.table.noHeaders = true
	return raw
}

// bookmark sends a BOOKMARK carrying only a resourceVersion: the kind with
// nothing but that (and the end-of-initial-events annotation), converted
// as the watch's other events are, as kube converts it: in a Table watch
// that object as a Table row, in a metadata watch a PartialObjectMetadata
// (a metadata informer cannot decode the resource's own kind, and ends
// its watch on one).
func (e *watchEncoder) bookmark(rev int64, initialEnd bool) error {
	meta := map[string]any{"resourceVersion": strconv.FormatInt(rev, 10)}
	if initialEnd {
		meta["annotations"] = map[string]any{initialEventsEnd: "true"}
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"kind": e.res.Kind, "apiVersion": e.res.APIVersion(), "metadata": meta}}
	switch e.out.as {
	case "Table":
		stored, err := storage.NewObject(obj, rev)
		if err != nil {
			return err
		}
		return e.write(watch.Bookmark, e.tableOf(stored), nil)
	case "":
	default:
		obj.SetAPIVersion(metav1.SchemeGroupVersion.String())
		obj.SetKind("PartialObjectMetadata")
	}
	raw, _ := json.Marshal(obj.Object)
	return e.write(watch.Bookmark, raw, nil)
}

// write frames one event: a JSON line, or a length-prefixed protobuf
// WatchEvent whose object is itself a protobuf-encoded kind.
func (e *watchEncoder) write(typ watch.EventType, raw []byte, obj *storage.Object) error {
	if e.out.media != mediaProtobuf || e.out.as == "Table" {
		e.buf.Reset()
		e.buf.WriteString(`{"type":"`)
		e.buf.WriteString(string(typ))
		e.buf.WriteString(`","object":`)
		e.buf.Write(raw)
		e.buf.WriteString("}\n")
		_, err := e.w.Write(e.buf.Bytes())
		return err
	}
	inner, err := e.protobufObject(typ, raw, obj)
	if err != nil {
		return err
	}
	we := metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: inner}}
	data, err := we.Marshal()
	if err != nil {
		return err
	}
	var size [4]byte
	binary.BigEndian.PutUint32(size[:], uint32(len(data)))
	if _, err := e.w.Write(size[:]); err != nil {
		return err
	}
	_, err = e.w.Write(data)
	return err
}

// protobufObject is an event's object as protobuf: a stored object of a
// kind with a protobuf encoding from the encoding cached with it (one
// encoding for every watcher and reader), anything else encoded here.
func (e *watchEncoder) protobufObject(typ watch.EventType, raw []byte, obj *storage.Object) ([]byte, error) {
	if obj != nil && typ != watch.Error && e.out.as == "" {
		if _, typed := resource.Typed(e.res.GroupVersionKind()); typed {
			inner, err := objectProto(e.res, obj)
			if err != nil {
				return nil, err
			}
			return envelope(e.res.GroupVersionKind(), inner)
		}
	}
	return protobufObject(raw, e.res, typ, e.out.as != "")
}

// protobufObject encodes an event's JSON object as protobuf: the resource's
// kind, its metadata-only view, or a Status for ERROR events.
func protobufObject(raw []byte, res *resource.Info, typ watch.EventType, metadataOnly bool) ([]byte, error) {
	var obj runtime.Object
	typed, ok := resource.Typed(res.GroupVersionKind())
	switch {
	case typ == watch.Error:
		obj = &metav1.Status{}
	case ok && !metadataOnly:
		obj = typed
	default:
		obj = &metav1.PartialObjectMetadata{}
	}
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, err
	}
	if typ == watch.Error {
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersion{Version: "v1"}.WithKind("Status"))
	}
	var b bytes.Buffer
	if err := protobufSerializer.Encode(obj, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
